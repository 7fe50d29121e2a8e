import { BellOutlined, DesktopOutlined, MobileOutlined } from '@ant-design/icons';
import type { PushDevice } from '@parley/protocol';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Flex, List, Popconfirm, Skeleton, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { call } from '../../lib/api';
import { toastError, toastSuccess } from '../../lib/feedback';
import { formatDateTime } from '../../lib/format';
import { describeBrowser } from '../personal/userAgent';
import { currentSubscription, pushSupported, subscribeThisDevice, unsubscribeThisDevice } from './device';

const devicesKey = ['push', 'devices'] as const;
const thisDeviceKey = ['push', 'thisDevice'] as const;

function DeviceRow({ device, removing, onRemove }: { device: PushDevice; removing: boolean; onRemove: () => void }) {
  const { t } = useTranslation();
  const browser = describeBrowser(device.userAgent);
  const name = [browser.name, browser.system].filter(Boolean).join(' · ') || t('push.unknownBrowser');
  return (
    <List.Item
      data-testid="push-device"
      actions={[
        <Popconfirm
          key="remove"
          title={t('push.removeConfirm')}
          okText={t('push.remove')}
          cancelText={t('common.cancel')}
          okButtonProps={{ danger: true }}
          onConfirm={onRemove}
        >
          <Button size="small" danger loading={removing} data-testid="push-device-remove">
            {t('push.remove')}
          </Button>
        </Popconfirm>,
      ]}
    >
      <List.Item.Meta
        avatar={browser.mobile ? <MobileOutlined className="account-device" /> : <DesktopOutlined className="account-device" />}
        title={<span title={device.userAgent}>{name}</span>}
        description={
          <Flex vertical>
            <span>
              {t('push.service')}: {device.service}
            </span>
            <span>{t('push.since', { time: formatDateTime(device.createdAt) })}</span>
            {device.lastSentAt ? <span>{t('push.lastSent', { time: formatDateTime(device.lastSentAt) })}</span> : null}
            {device.lastFailedAt ? (
              <Typography.Text type="danger" data-testid="push-device-error">
                {t('push.lastFailed', { time: formatDateTime(device.lastFailedAt), error: device.lastError ?? '' })}
              </Typography.Text>
            ) : null}
          </Flex>
        }
      />
    </List.Item>
  );
}

/**
 * The personal page's notifications when the console is closed (CONTRACT §14): this browser's
 * subscription, a test notification, and the agent's subscribed devices with their last failure.
 */
export function PushSection() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const supported = pushSupported();
  const devices = useQuery({ queryKey: devicesKey, queryFn: () => call('GET /api/push/devices'), staleTime: 0 });
  const thisDevice = useQuery({ queryKey: thisDeviceKey, queryFn: async () => Boolean(await currentSubscription()), enabled: supported });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['push'] });

  const toggle = useMutation({
    mutationFn: async (on: boolean) => {
      if (on) return subscribeThisDevice();
      await unsubscribeThisDevice();
      return 'unsubscribed' as const;
    },
    onSuccess: async (outcome) => {
      if (outcome === 'denied') toastError(t('push.denied'));
      else if (outcome === 'unsupported') toastError(t('push.unsupported'));
      else toastSuccess(t(outcome === 'subscribed' ? 'push.enabled' : 'push.disabled'));
      await refresh();
    },
    onError: (error) => toastError(t('push.failed', { reason: error instanceof Error ? error.message : String(error) })),
  });
  const test = useMutation({
    mutationFn: () => call('POST /api/push/test'),
    onSuccess: async ({ sent, failed }) => {
      if (sent + failed === 0) toastError(t('push.testNone'));
      else if (failed > 0) toastError(t('push.testFailed', { failed }));
      else toastSuccess(t('push.testSent', { count: sent }));
      await refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (id: number) => call('POST /api/push/devices/remove', { id }),
    onSuccess: async () => {
      toastSuccess(t('push.removed'));
      await refresh();
    },
  });

  const on = thisDevice.data === true;
  return (
    <Flex vertical gap={12} data-testid="push-section">
      <Typography.Paragraph type="secondary" className="push-intro">
        {t('push.intro')}
      </Typography.Paragraph>
      {supported ? (
        <Flex gap={8} wrap align="center">
          <span>{t('push.thisDevice')}:</span>
          <Tag color={on ? 'green' : 'default'} data-testid="push-this-device">
            {t(on ? 'push.on' : 'push.off')}
          </Tag>
          <Button
            type={on ? 'default' : 'primary'}
            icon={<BellOutlined />}
            loading={toggle.isPending}
            onClick={() => toggle.mutate(!on)}
            data-testid="push-toggle"
          >
            {t(on ? 'push.disable' : 'push.enable')}
          </Button>
        </Flex>
      ) : (
        <Alert type="info" showIcon message={t('push.unsupported')} />
      )}
      <div>
        <Button onClick={() => test.mutate()} loading={test.isPending} data-testid="push-test">
          {t('push.test')}
        </Button>
      </div>
      <Typography.Text strong>{t('push.devices')}</Typography.Text>
      {devices.data ? (
        <List
          size="small"
          dataSource={devices.data.list}
          // antd's own empty-list grey reads below 4.5:1; the theme's secondary text does not.
          locale={{ emptyText: <Typography.Text type="secondary">{t('push.noDevices')}</Typography.Text> }}
          renderItem={(device) => (
            <DeviceRow
              key={device.id}
              device={device}
              removing={remove.isPending && remove.variables === device.id}
              onRemove={() => remove.mutate(device.id)}
            />
          )}
        />
      ) : (
        <Skeleton active />
      )}
    </Flex>
  );
}
