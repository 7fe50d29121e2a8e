import type { WeChatChannel, WeChatChannelStatus, WeChatTestAnswer } from '@parley/protocol';
import { Button, Space, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call } from '../../../lib/api';
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
export function ChannelStatus({ value }: { value?: WeChatChannelStatus['status'] }) {
  const { t } = useTranslation();
  // Worded here in the reader's language; the server's English text stands in for an error kept before codes.
  const error = value?.lastErrorCode
    ? t(`settings.wechat.error.${value.lastErrorCode}`, { detail: value.lastErrorDetail })
    : value?.lastError;
  return (
    <div className="wechat-status" data-testid="wechat-status">
      <div>
        <Typography.Text type="secondary">{t('settings.wechat.lastReceived')}: </Typography.Text>
        {value?.lastReceivedAt ? formatDateTime(value.lastReceivedAt) : t('settings.wechat.never')}
      </div>
      <div>
        <Typography.Text type="secondary">{t('settings.wechat.lastError')}: </Typography.Text>
        {error ? <Typography.Text type="danger">{error}</Typography.Text> : t('settings.wechat.none')}
      </div>
    </div>
  );
}

/** Asks WeChat for an access token with the stored AppID and AppSecret, and says what it answered. */
export function TestCredentials({ channel }: { channel: WeChatChannel }) {
  const { t } = useTranslation();
  const [busy, setBusy] = useState(false);
  const [answer, setAnswer] = useState<WeChatTestAnswer>();
  const test = async () => {
    setBusy(true);
    try {
      setAnswer(await call('POST /api/wechat/test', { channel }));
    } catch {
      setAnswer(undefined);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Space wrap>
      <Button onClick={() => void test()} loading={busy} data-testid={`wechat-test-${channel}`}>
        {t('settings.wechat.test')}
      </Button>
      {answer && (
        <Typography.Text type={answer.ok ? 'success' : 'danger'} data-testid={`wechat-test-answer-${channel}`} role="status">
          {answer.ok
            ? t('settings.wechat.testOk')
            : answer.message
              ? t('settings.wechat.testFailed', { code: answer.errcode, message: answer.message })
              : t('settings.wechat.testMissing')}
        </Typography.Text>
      )}
    </Space>
  );
}
