import { ClockCircleOutlined, WarningFilled } from '@ant-design/icons';
import { Alert } from 'antd';
import { useTranslation } from 'react-i18next';
import type { ChatMessage } from '../model';
import './delivery.css';

/** The reasons the server names (§11); any other is shown as WeChat's own refusal. */
const KNOWN_ERRORS = ['windowClosed', 'quotaExceeded', 'notConfigured', 'unreachable', 'withdrawn'];

function useReason() {
  const { t } = useTranslation();
  return (error: string | null | undefined) =>
    t(`workbench.delivery.error.${KNOWN_ERRORS.includes(error ?? '') ? error : 'other'}`, { code: error ?? '' });
}

/** Beside a message to a WeChat visitor: waiting for WeChat, or refused by it (sent shows nothing). */
export function DeliveryState({ message }: { message: ChatMessage }) {
  const { t } = useTranslation();
  const reason = useReason();
  if (message.delivery === 'pending') {
    return (
      <span
        className="wb-state wb-delivery pending"
        role="img"
        title={t('workbench.delivery.pending')}
        aria-label={t('workbench.delivery.pending')}
      >
        <ClockCircleOutlined />
      </span>
    );
  }
  if (message.delivery !== 'failed') return null;
  const text = `${t('workbench.delivery.failed')}: ${reason(message.deliveryError)}`;
  return (
    <span className="wb-state wb-delivery failed" role="img" title={text} aria-label={text}>
      <WarningFilled />
    </span>
  );
}

/** Under a message WeChat refused: why, in words. */
export function DeliveryNote({ message }: { message: ChatMessage }) {
  const { t } = useTranslation();
  const reason = useReason();
  if (message.delivery !== 'failed') return null;
  return (
    <div className="wb-delivery-note" data-testid="wb-delivery-failed">
      {t('workbench.delivery.failed')}: {reason(message.deliveryError)}
    </div>
  );
}

/** Above the composer while the conversation's latest message to WeChat was refused or still waits. */
export function DeliveryBanner({ messages }: { messages: readonly ChatMessage[] }) {
  const { t } = useTranslation();
  const reason = useReason();
  const last = [...messages].reverse().find((message) => message.delivery);
  if (!last || last.delivery === 'sent') return null;
  if (last.delivery === 'pending') return null;
  return (
    <Alert
      type="warning"
      showIcon
      banner
      className="wb-delivery-banner"
      data-testid="wb-delivery-banner"
      message={`${t('workbench.delivery.lastFailed')}: ${reason(last.deliveryError)}`}
    />
  );
}
