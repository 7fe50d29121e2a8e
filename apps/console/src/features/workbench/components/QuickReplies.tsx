import { DeleteOutlined, EditOutlined, PlusOutlined } from '@ant-design/icons';
import { Button, Empty, Input, Modal } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

/** The agent's personal quick replies: one click puts a reply in the draft. */
export function QuickRepliesList({ list, onPick, onEdit }: { list: string[]; onPick(reply: string): void; onEdit(): void }) {
  const { t } = useTranslation();
  return (
    <div className="wb-quick" data-testid="wb-quick">
      <div className="wb-quick-head">
        <span>{t('workbench.quick.title')}</span>
        <Button size="small" type="link" icon={<EditOutlined />} onClick={onEdit}>
          {t('workbench.quick.edit')}
        </Button>
      </div>
      {list.length === 0 ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('workbench.quick.empty')} />
      ) : (
        <ul className="wb-quick-list">
          {list.map((reply) => (
            <li key={reply}>
              <button type="button" onClick={() => onPick(reply)}>
                {reply}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** Edits the list; it lives outside the popover so that typing in it does not close the popover under it. */
export function QuickRepliesEditor({ list, onSave, onCancel }: { list: string[] | null; onSave(list: string[]): void; onCancel(): void }) {
  const { t } = useTranslation();
  const [rows, setRows] = useState<string[]>([]);
  return (
    <Modal
      open={list !== null}
      title={t('workbench.quick.editTitle')}
      onCancel={onCancel}
      onOk={() => onSave(rows)}
      okText={t('workbench.quick.save')}
      cancelText={t('workbench.quick.cancel')}
      afterOpenChange={(open) => {
        if (open) setRows(list ?? []);
      }}
      destroyOnHidden
    >
      <div className="wb-quick-edit">
        {rows.map((reply, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: rows are edited in place and only removed explicitly
          <div className="wb-quick-edit-row" key={index}>
            <Input.TextArea
              value={reply}
              autoSize={{ minRows: 1, maxRows: 4 }}
              maxLength={500}
              aria-label={t('workbench.quick.item', { n: index + 1 })}
              onChange={(event) => setRows((all) => all.map((row, at) => (at === index ? event.target.value : row)))}
            />
            <Button
              type="text"
              danger
              icon={<DeleteOutlined />}
              aria-label={t('workbench.quick.remove')}
              onClick={() => setRows((all) => all.filter((_, at) => at !== index))}
            />
          </div>
        ))}
        <Button type="dashed" block icon={<PlusOutlined />} onClick={() => setRows((all) => [...all, ''])}>
          {t('workbench.quick.add')}
        </Button>
      </div>
    </Modal>
  );
}
