import DeleteOutlined from '@ant-design/icons/DeleteOutlined';
import { Button, Popconfirm } from 'antd';
import { useTranslation } from 'react-i18next';

/** The confirm-then-delete of every list page, for the selected rows. */
export function BatchDeleteButton({ count, onConfirm }: { count: number; onConfirm: () => Promise<unknown> }) {
  const { t } = useTranslation();
  return (
    <Popconfirm
      title={t('common.confirmTitle')}
      description={t('common.deleteConfirm', { count })}
      okText={t('common.ok')}
      cancelText={t('common.cancel')}
      disabled={count === 0}
      onConfirm={onConfirm}
    >
      <Button danger icon={<DeleteOutlined />} disabled={count === 0}>
        {t('common.batchDelete')}
      </Button>
    </Popconfirm>
  );
}

/** The confirm-then-delete of one row, as an icon in its actions column. */
export function RowDeleteButton({ onConfirm, disabled = false }: { onConfirm: () => Promise<unknown>; disabled?: boolean }) {
  const { t } = useTranslation();
  return (
    <Popconfirm
      title={t('common.confirmTitle')}
      description={t('common.deleteConfirm', { count: 1 })}
      okText={t('common.ok')}
      cancelText={t('common.cancel')}
      disabled={disabled}
      onConfirm={onConfirm}
    >
      <Button type="link" size="small" danger disabled={disabled} icon={<DeleteOutlined />} aria-label={t('common.delete')} />
    </Popconfirm>
  );
}
