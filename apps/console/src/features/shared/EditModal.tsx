import { Modal } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

/** The create/edit dialog of the list pages: Save and Cancel, a spinner while saving, fresh each time. */
export function EditModal(props: {
  title: string;
  open: boolean;
  saving: boolean;
  onSave: () => void;
  onCancel: () => void;
  width?: number;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  return (
    <Modal
      title={props.title}
      open={props.open}
      onCancel={props.onCancel}
      onOk={props.onSave}
      okText={t('common.save')}
      cancelText={t('common.cancel')}
      confirmLoading={props.saving}
      destroyOnHidden
      width={props.width}
    >
      {props.children}
    </Modal>
  );
}
