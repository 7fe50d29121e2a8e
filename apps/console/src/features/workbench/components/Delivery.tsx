import { ClockCircleOutlined, WarningFilled } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Alert } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call } from '../../../lib/api';
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

/** WeChat accepts replies for 48 hours after the user's last message, and the site's quota per user message. */
const WINDOW_MS = 48 * 3600_000;
/** Under this much time left the line turns into a warning. */
const WARN_MS = 2 * 3600_000;

/** What WeChat still allows now: the time left to reply, and the replies used since the user last wrote. */
export function replyWindow(messages: readonly ChatMessage[], now: number): { leftMs: number; used: number } | undefined {
  let lastUser = -1;
  for (let at = messages.length - 1; at >= 0; at--) {
    if (messages[at]?.role === 'user') {
      lastUser = at;
      break;
    }
  }
  const from = messages[lastUser];
  if (!from) return undefined;
  const used = messages.slice(lastUser + 1).filter((message) => message.delivery && message.delivery !== 'failed').length;
  return { leftMs: Date.parse(from.time) + WINDOW_MS - now, used };
}

/** For a WeChat visitor: how long replies may still reach them and how many, warned before the window closes. */
export function WeChatWindow({ messages }: { messages: readonly ChatMessage[] }) {
  const { t } = useTranslation();
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 60_000);
    return () => clearInterval(timer);
  }, []);
  // The quota the site set (weChatSetting.windowQuota), read once for every WeChat conversation.
  const quota = useQuery({ queryKey: ['wechat', 'replyQuota'], queryFn: () => call('GET /api/wechat/replyQuota'), staleTime: 60_000 });
  const window = replyWindow(messages, now);
  if (!window || !quota.data) return null;
  const max = quota.data.quota;
  const closed = window.leftMs <= 0;
  const full = window.used >= max;
  const hours = Math.floor(Math.max(0, window.leftMs) / 3600_000);
  const minutes = Math.floor((Math.max(0, window.leftMs) % 3600_000) / 60_000);
  const text = closed
    ? t('workbench.delivery.windowClosed')
    : `${t('workbench.delivery.windowLeft', { hours, minutes })} · ${t('workbench.delivery.quota', { used: window.used, max })}`;
  return (
    <div
      className={`wb-wechat-window${closed || full || window.leftMs < WARN_MS ? ' warn' : ''}`}
      data-testid="wb-wechat-window"
      role="status"
    >
      {text}
    </div>
  );
}
