import { Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { formatDateTime } from '../../../lib/format';
import './wechat.css';

/** The read-only push URL the server answers (§11), to paste into WeChat's console; copied with one click. */
export function ServerUrl({ value }: { value?: string }) {
  const { t } = useTranslation();
  if (!value) return <Typography.Text type="secondary">—</Typography.Text>;
  return (
    <Typography.Text
      code
      className="wechat-server-url"
      data-testid="wechat-server-url"
      copyable={{ text: value, tooltips: [t('settings.wechat.copy'), t('settings.wechat.copied')] }}
    >
      {value}
    </Typography.Text>
  );
}

/** When the channel last received a push, and what last went wrong (a refused push, a send WeChat refused). */
export function ChannelStatus({ value }: { value?: { lastReceivedAt: string | null; lastError: string | null } }) {
  const { t } = useTranslation();
  return (
    <div className="wechat-status" data-testid="wechat-status">
      <div>
        <Typography.Text type="secondary">{t('settings.wechat.lastReceived')}: </Typography.Text>
        {value?.lastReceivedAt ? formatDateTime(value.lastReceivedAt) : t('settings.wechat.never')}
      </div>
      <div>
        <Typography.Text type="secondary">{t('settings.wechat.lastError')}: </Typography.Text>
        {value?.lastError ? <Typography.Text type="danger">{value.lastError}</Typography.Text> : t('settings.wechat.none')}
      </div>
    </div>
  );
}
