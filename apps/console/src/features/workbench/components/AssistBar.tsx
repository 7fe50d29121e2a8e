import { BulbOutlined, CloseOutlined, EnterOutlined } from '@ant-design/icons';
import { Button, Tooltip, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { AssistOffer } from '../assist';
import '../assist.css';

/**
 * The suggested answer above the reply box: the question it matched, the answer, and "Insert" (Tab in an
 * empty reply does the same). Once inserted it can be edited like any draft; it is not sent by itself.
 */
export function AssistBar({ offer, onInsert, onDismiss }: { offer: AssistOffer; onInsert(): void; onDismiss(): void }) {
  const { t } = useTranslation();
  return (
    <div className={`wb-assist${offer.inserted ? ' inserted' : ''}`} data-testid="wb-assist">
      <BulbOutlined className="wb-assist-icon" aria-hidden />
      <div className="wb-assist-body">
        <div className="wb-assist-head">
          <span className="wb-assist-title">{t('workbench.assist.title')}</span>
          <Typography.Text type="secondary" ellipsis={{ tooltip: offer.question }} className="wb-assist-question">
            {t('workbench.assist.matched', { question: offer.question })}
          </Typography.Text>
        </div>
        <Typography.Paragraph ellipsis={{ rows: 2, tooltip: offer.answer }} className="wb-assist-answer" data-testid="wb-assist-answer">
          {offer.answer}
        </Typography.Paragraph>
      </div>
      <div className="wb-assist-actions">
        <Tooltip title={t('workbench.assist.insertHint')}>
          <Button size="small" type="primary" ghost icon={<EnterOutlined />} onClick={onInsert} data-testid="wb-assist-insert">
            {t('workbench.assist.insert')}
            <kbd className="wb-assist-key">Tab</kbd>
          </Button>
        </Tooltip>
        <Tooltip title={t('workbench.assist.dismiss')}>
          <Button
            size="small"
            type="text"
            icon={<CloseOutlined />}
            onClick={onDismiss}
            aria-label={t('workbench.assist.dismiss')}
            data-testid="wb-assist-dismiss"
          />
        </Tooltip>
      </div>
    </div>
  );
}
