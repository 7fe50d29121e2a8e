import { ApiOutlined, PlusOutlined } from '@ant-design/icons';
import { WEBHOOK_EVENTS, type Webhook, type WebhookDelivery, type WebhookEvent, type WebhookWithSecret } from '@parley/protocol';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, Checkbox, Empty, Flex, Form, Input, List, Modal, Popconfirm, Switch, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call } from '../../lib/api';
import { toastSuccess } from '../../lib/feedback';
import { formatDateTime } from '../../lib/format';
import './webhooks.css';

const hooksKey = ['webhooks'] as const;
/** While a log is open it is read again this often: a delivery goes out within seconds of its event. */
const LOG_REFRESH_MS = 2000;

/** i18next reads dots as nesting: an event's label sits under its name with `_` for `.`. */
const eventKey = (event: string) => `webhooks.event.${event.replace('.', '_')}`;

interface Draft {
  url: string;
  events: WebhookEvent[];
  enabled: boolean;
}

function EditWebhook({
  editing,
  onClose,
  onSaved,
}: {
  editing: Webhook | 'new' | null;
  onClose: () => void;
  onSaved: (made?: WebhookWithSecret) => void;
}) {
  const { t } = useTranslation();
  const [form] = Form.useForm<Draft>();
  const existing = editing !== 'new' && editing !== null ? editing : undefined;
  const save = useMutation({
    mutationFn: (draft: Draft) => call('POST /api/webhook/doEdit', { ...draft, ...(existing ? { id: existing.id } : {}) }),
    onSuccess: (answer) => onSaved('secret' in answer ? answer : undefined),
  });
  return (
    <Modal
      open={editing !== null}
      title={existing ? t('webhooks.editTitle') : t('webhooks.create')}
      okText={t('webhooks.save')}
      cancelText={t('common.cancel')}
      onCancel={onClose}
      onOk={() => form.submit()}
      confirmLoading={save.isPending}
      destroyOnHidden
    >
      <Form
        form={form}
        layout="vertical"
        preserve={false}
        initialValues={
          existing ? { url: existing.url, events: existing.events, enabled: existing.enabled } : { url: '', events: [], enabled: true }
        }
        onFinish={(draft) => save.mutate(draft)}
        data-testid="webhook-form"
      >
        <Form.Item
          name="url"
          label={t('webhooks.url')}
          extra={t('webhooks.urlHint')}
          rules={[
            { required: true, whitespace: true, max: 2048 },
            { type: 'url', message: t('webhooks.urlInvalid') },
          ]}
        >
          <Input placeholder="https://crm.example.com/parley" maxLength={2048} inputMode="url" />
        </Form.Item>
        <Form.Item
          name="events"
          label={t('webhooks.events')}
          rules={[{ required: true, type: 'array', min: 1, message: t('webhooks.eventsRequired') }]}
        >
          <Checkbox.Group
            className="webhook-events"
            options={WEBHOOK_EVENTS.map((event) => ({
              value: event,
              label: (
                <span>
                  {t(eventKey(event))} <code className="webhook-event-code">{event}</code>
                </span>
              ),
            }))}
          />
        </Form.Item>
        <Form.Item name="enabled" label={t('webhooks.enabled')} valuePropName="checked">
          <Switch />
        </Form.Item>
      </Form>
    </Modal>
  );
}

const STATUS_COLOR = { pending: 'processing', delivered: 'success', failed: 'error' } as const;

/** The deliveries of one webhook, newest first, with what came back and when the next try is. */
function DeliveryLog({ webhook }: { webhook: Webhook }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const key = ['webhooks', webhook.id, 'deliveries'];
  const log = useQuery({
    queryKey: key,
    queryFn: () => call('GET /api/webhook/deliveries', { id: webhook.id, pageSize: 50 }),
    refetchInterval: LOG_REFRESH_MS,
  });
  const redeliver = useMutation({
    mutationFn: (deliveryId: string) => call('POST /api/webhook/redeliver', { deliveryId }),
    onSuccess: async () => {
      toastSuccess(t('webhooks.redelivered'));
      await queryClient.invalidateQueries({ queryKey: key });
    },
  });
  const rows = log.data?.list ?? [];
  return (
    <div className="webhook-log" data-testid="webhook-log">
      <Typography.Text strong>{t('webhooks.log', { count: log.data?.total ?? 0 })}</Typography.Text>
      {log.data && rows.length === 0 ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('webhooks.noDeliveries')} />
      ) : (
        <List
          size="small"
          loading={!log.data}
          dataSource={rows}
          renderItem={(delivery: WebhookDelivery) => (
            <List.Item
              data-testid="webhook-delivery"
              data-status={delivery.status}
              actions={[
                <Button
                  key="again"
                  size="small"
                  onClick={() => redeliver.mutate(delivery.id)}
                  loading={redeliver.isPending && redeliver.variables === delivery.id}
                >
                  {t('webhooks.redeliver')}
                </Button>,
              ]}
            >
              <Flex vertical gap={2} className="webhook-delivery">
                <Flex wrap gap={6} align="center">
                  <Tag color={STATUS_COLOR[delivery.status]}>{t(`webhooks.status.${delivery.status}`)}</Tag>
                  <code>{delivery.event}</code>
                  <Typography.Text type="secondary">{formatDateTime(delivery.createdAt)}</Typography.Text>
                </Flex>
                <Typography.Text type="secondary" className="webhook-delivery-detail">
                  {[
                    t('webhooks.attempts', { count: delivery.attempts }),
                    delivery.responseCode !== null ? t('webhooks.response', { code: delivery.responseCode }) : null,
                    delivery.error && delivery.error !== 'http' ? t('webhooks.error', { reason: delivery.error }) : null,
                    delivery.nextAttemptAt ? t('webhooks.next', { time: formatDateTime(delivery.nextAttemptAt) }) : null,
                  ]
                    .filter(Boolean)
                    .join(' · ')}
                </Typography.Text>
              </Flex>
            </List.Item>
          )}
        />
      )}
    </div>
  );
}

function WebhookRow({ webhook, onEdit, onSecret }: { webhook: Webhook; onEdit: () => void; onSecret: (made: WebhookWithSecret) => void }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [logOpen, setLogOpen] = useState(false);
  const refresh = () => queryClient.invalidateQueries({ queryKey: hooksKey });
  const test = useMutation({
    mutationFn: () => call('POST /api/webhook/test', { id: webhook.id }),
    onSuccess: async () => {
      toastSuccess(t('webhooks.testSent'));
      setLogOpen(true);
      await queryClient.invalidateQueries({ queryKey: ['webhooks', webhook.id, 'deliveries'] });
    },
  });
  const rotate = useMutation({ mutationFn: () => call('POST /api/webhook/rotateSecret', { id: webhook.id }), onSuccess: onSecret });
  const remove = useMutation({
    mutationFn: () => call('POST /api/webhook/doDelete', { ids: [webhook.id] }),
    onSuccess: async () => {
      toastSuccess(t('webhooks.deleted'));
      await refresh();
    },
  });
  return (
    <List.Item data-testid="webhook-row" className="webhook-row">
      <Flex vertical gap={8} className="webhook-body">
        <Flex gap={8} align="flex-start">
          <ApiOutlined className="api-token-icon" />
          <Flex vertical gap={4} className="webhook-main">
            <Typography.Text strong className="webhook-url">
              {webhook.url}
            </Typography.Text>
            <Flex wrap gap={4}>
              {webhook.enabled ? <Tag color="success">{t('webhooks.on')}</Tag> : <Tag color="default">{t('webhooks.off')}</Tag>}
              {webhook.failures > 0 ? <Tag color="warning">{t('webhooks.failures', { count: webhook.failures })}</Tag> : null}
              {webhook.events.map((event) => (
                <Tag key={event}>{t(eventKey(event))}</Tag>
              ))}
            </Flex>
            {webhook.previousSecretUntil ? (
              <Typography.Text type="secondary">
                {t('webhooks.rotating', { time: formatDateTime(webhook.previousSecretUntil) })}
              </Typography.Text>
            ) : null}
          </Flex>
        </Flex>
        <Flex wrap gap={8}>
          <Button size="small" onClick={() => test.mutate()} loading={test.isPending} data-testid="webhook-test">
            {t('webhooks.test')}
          </Button>
          <Button size="small" onClick={() => setLogOpen(!logOpen)} aria-expanded={logOpen} data-testid="webhook-log-toggle">
            {logOpen ? t('webhooks.hideLog') : t('webhooks.showLog')}
          </Button>
          <Button size="small" onClick={onEdit}>
            {t('webhooks.edit')}
          </Button>
          <Popconfirm
            title={t('webhooks.rotateConfirm')}
            okText={t('webhooks.rotate')}
            cancelText={t('common.cancel')}
            onConfirm={() => rotate.mutate()}
          >
            <Button size="small" loading={rotate.isPending}>
              {t('webhooks.rotate')}
            </Button>
          </Popconfirm>
          <Popconfirm
            title={t('webhooks.deleteConfirm')}
            okText={t('webhooks.delete')}
            cancelText={t('common.cancel')}
            okButtonProps={{ danger: true }}
            onConfirm={() => remove.mutate()}
          >
            <Button size="small" danger loading={remove.isPending}>
              {t('webhooks.delete')}
            </Button>
          </Popconfirm>
        </Flex>
        {logOpen ? <DeliveryLog webhook={webhook} /> : null}
      </Flex>
    </List.Item>
  );
}

/** The integration page's webhooks: receivers told of events, signed, retried, with their delivery log. */
export function Webhooks() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState<Webhook | 'new' | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const hooks = useQuery({ queryKey: hooksKey, queryFn: () => call('GET /api/webhook/getList') });
  const showSecret = async (made: WebhookWithSecret) => {
    setSecret(made.secret);
    await queryClient.invalidateQueries({ queryKey: hooksKey });
  };
  return (
    <Card
      title={t('webhooks.title')}
      className="access-card"
      data-testid="webhooks"
      extra={
        <Button type="primary" icon={<PlusOutlined />} onClick={() => setEditing('new')} data-testid="webhook-new">
          {t('webhooks.new')}
        </Button>
      }
    >
      <Typography.Paragraph type="secondary">{t('webhooks.hint')}</Typography.Paragraph>
      {hooks.data && hooks.data.list.length === 0 ? (
        <Empty description={t('webhooks.none')} />
      ) : (
        <List
          loading={!hooks.data}
          dataSource={hooks.data?.list ?? []}
          renderItem={(webhook) => <WebhookRow webhook={webhook} onEdit={() => setEditing(webhook)} onSecret={showSecret} />}
        />
      )}
      <EditWebhook
        editing={editing}
        onClose={() => setEditing(null)}
        onSaved={async (made) => {
          setEditing(null);
          if (made) await showSecret(made);
          else {
            toastSuccess(t('webhooks.saved'));
            await queryClient.invalidateQueries({ queryKey: hooksKey });
          }
        }}
      />
      <Modal
        open={secret !== null}
        title={t('webhooks.secretTitle')}
        onCancel={() => setSecret(null)}
        // Once closed, the secret leaves the page: it is shown this once.
        destroyOnHidden
        footer={
          <Button type="primary" onClick={() => setSecret(null)}>
            {t('webhooks.done')}
          </Button>
        }
      >
        <Alert type="warning" showIcon message={t('webhooks.onceWarning')} className="api-token-once" />
        <Typography.Paragraph
          copyable={{ text: secret ?? '', tooltips: [t('access.copy'), t('access.copied')] }}
          className="access-code"
          data-testid="webhook-secret"
        >
          <code>{secret}</code>
        </Typography.Paragraph>
        <Typography.Paragraph type="secondary">{t('webhooks.verify')}</Typography.Paragraph>
      </Modal>
    </Card>
  );
}
