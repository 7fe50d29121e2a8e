import { KeyOutlined, PlusOutlined } from '@ant-design/icons';
import {
  ADMIN_ROLE,
  type ApiToken,
  type ApiTokenGrant,
  grantable,
  PERMISSION_LABELS,
  PERMISSIONS,
  type Permission,
} from '@parley/protocol';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  Button,
  Card,
  Checkbox,
  Collapse,
  DatePicker,
  Empty,
  Flex,
  Form,
  Input,
  List,
  Modal,
  Popconfirm,
  Tag,
  Typography,
} from 'antd';
import type { Dayjs } from 'dayjs';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useAccess } from '../../lib/access';
import { call } from '../../lib/api';
import { toastSuccess } from '../../lib/feedback';
import { currentLanguage, formatDateTime } from '../../lib/format';

const tokensKey = ['apiTokens'] as const;
const GRANTS: ApiTokenGrant[] = [...PERMISSIONS, ADMIN_ROLE];

function useGrantLabel() {
  const { t } = useTranslation();
  const lang = currentLanguage();
  return (grant: ApiTokenGrant) => (grant === ADMIN_ROLE ? t('apiTokens.adminGrant') : PERMISSION_LABELS[grant as Permission][lang]);
}

interface Draft {
  name: string;
  permissions: ApiTokenGrant[];
  expiresAt?: Dayjs | null;
}

/** The calls a token with these grants may make, as the server mounts them (`GET /api/apiToken/calls`). */
function CallsPreview({ grants }: { grants: ApiTokenGrant[] }) {
  const { t } = useTranslation();
  const calls = useQuery({ queryKey: ['apiTokens', 'calls'], queryFn: () => call('GET /api/apiToken/calls'), staleTime: Infinity });
  if (!calls.data) return null;
  const granted = new Set(grants);
  const admin = granted.has(ADMIN_ROLE);
  const own = calls.data.byGrant.filter((entry) => admin || granted.has(entry.grant)).flatMap((entry) => entry.calls);
  const list = [...new Set([...own, ...calls.data.everyAgent])].sort();
  return (
    <Collapse
      size="small"
      items={[
        {
          key: 'calls',
          label: t('apiTokens.calls', { count: list.length }),
          children: (
            <ul className="api-token-calls" data-testid="api-token-calls">
              {list.map((key) => (
                <li key={key}>
                  <code>{key}</code>
                </li>
              ))}
            </ul>
          ),
        },
      ]}
    />
  );
}

function CreateToken({ open, onClose, onCreated }: { open: boolean; onClose: () => void; onCreated: (token: string) => void }) {
  const { t } = useTranslation();
  const access = useAccess();
  const label = useGrantLabel();
  const [form] = Form.useForm<Draft>();
  const grants = Form.useWatch('permissions', form) ?? [];
  // The server refuses grants the user does not hold (403); the form offers only the rest.
  const mayGive = (grant: ApiTokenGrant) =>
    grant === ADMIN_ROLE
      ? grantable(access, { roles: [ADMIN_ROLE], permissions: [] })
      : grantable(access, { roles: [], permissions: [grant] });
  const create = useMutation({
    mutationFn: (draft: Draft) =>
      call('POST /api/apiToken/doEdit', {
        name: draft.name,
        permissions: draft.permissions,
        expiresAt: draft.expiresAt ? draft.expiresAt.endOf('day').toISOString() : null,
      }),
    onSuccess: (answer) => {
      form.resetFields();
      onCreated(answer.token);
    },
  });
  return (
    <Modal
      open={open}
      title={t('apiTokens.create')}
      okText={t('apiTokens.createOk')}
      cancelText={t('common.cancel')}
      onCancel={onClose}
      onOk={() => form.submit()}
      confirmLoading={create.isPending}
      destroyOnHidden
    >
      <Form form={form} layout="vertical" onFinish={(draft) => create.mutate(draft)} data-testid="api-token-form">
        <Form.Item name="name" label={t('apiTokens.name')} rules={[{ required: true, whitespace: true, max: 64 }]}>
          <Input placeholder={t('apiTokens.namePlaceholder')} maxLength={64} />
        </Form.Item>
        <Form.Item name="permissions" label={t('apiTokens.grants')} rules={[{ required: true, type: 'array', min: 1 }]}>
          <Checkbox.Group
            className="permission-grid"
            options={GRANTS.map((grant) => ({ value: grant, label: label(grant), disabled: !mayGive(grant) }))}
          />
        </Form.Item>
        <Form.Item name="expiresAt" label={t('apiTokens.expires')} extra={t('apiTokens.expiresHint')}>
          <DatePicker disabledDate={(day) => day.isBefore(new Date(), 'day')} />
        </Form.Item>
      </Form>
      <CallsPreview grants={grants} />
    </Modal>
  );
}

function TokenRow({ token, onRevoke, revoking }: { token: ApiToken; onRevoke: () => void; revoking: boolean }) {
  const { t } = useTranslation();
  const label = useGrantLabel();
  return (
    <List.Item
      data-testid="api-token-row"
      actions={[
        <Popconfirm
          key="revoke"
          title={t('apiTokens.revokeConfirm', { name: token.name })}
          okText={t('apiTokens.revoke')}
          cancelText={t('common.cancel')}
          okButtonProps={{ danger: true }}
          onConfirm={onRevoke}
        >
          <Button size="small" danger loading={revoking} aria-label={t('apiTokens.revokeNamed', { name: token.name })}>
            {t('apiTokens.revoke')}
          </Button>
        </Popconfirm>,
      ]}
    >
      <List.Item.Meta
        avatar={<KeyOutlined className="api-token-icon" />}
        title={token.name}
        description={
          <Flex vertical gap={4}>
            <Flex wrap gap={4}>
              {token.permissions.map((grant) => (
                <Tag key={grant}>{label(grant)}</Tag>
              ))}
            </Flex>
            <span>{t('apiTokens.madeBy', { name: token.createdBy, time: formatDateTime(token.createdAt) })}</span>
            <span>{token.lastUsedAt ? t('apiTokens.lastUsed', { time: formatDateTime(token.lastUsedAt) }) : t('apiTokens.neverUsed')}</span>
            <span>{token.expiresAt ? t('apiTokens.expiresAt', { time: formatDateTime(token.expiresAt) }) : t('apiTokens.noExpiry')}</span>
          </Flex>
        }
      />
    </List.Item>
  );
}

/** The integration page's API tokens: made for a script or another system, shown once, revoked at once. */
export function ApiTokens() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [creating, setCreating] = useState(false);
  const [shown, setShown] = useState<string | null>(null);
  const tokens = useQuery({ queryKey: tokensKey, queryFn: () => call('GET /api/apiToken/getList') });
  const revoke = useMutation({
    mutationFn: (id: number) => call('POST /api/apiToken/doDelete', { ids: [id] }),
    onSuccess: async () => {
      toastSuccess(t('apiTokens.revoked'));
      await queryClient.invalidateQueries({ queryKey: tokensKey });
    },
  });
  return (
    <Card
      title={t('apiTokens.title')}
      className="access-card"
      data-testid="api-tokens"
      extra={
        <Button type="primary" icon={<PlusOutlined />} onClick={() => setCreating(true)} data-testid="api-token-new">
          {t('apiTokens.new')}
        </Button>
      }
    >
      <Typography.Paragraph type="secondary">{t('apiTokens.hint')}</Typography.Paragraph>
      {tokens.data && tokens.data.list.length === 0 ? (
        <Empty description={t('apiTokens.none')} />
      ) : (
        <List
          loading={!tokens.data}
          dataSource={tokens.data?.list ?? []}
          renderItem={(token) => (
            <TokenRow token={token} revoking={revoke.isPending && revoke.variables === token.id} onRevoke={() => revoke.mutate(token.id)} />
          )}
        />
      )}
      <CreateToken
        open={creating}
        onClose={() => setCreating(false)}
        onCreated={async (token) => {
          setCreating(false);
          setShown(token);
          await queryClient.invalidateQueries({ queryKey: tokensKey });
        }}
      />
      <Modal
        open={shown !== null}
        title={t('apiTokens.madeTitle')}
        onCancel={() => setShown(null)}
        // Once closed, the secret leaves the page: it is shown this once.
        destroyOnHidden
        footer={
          <Button type="primary" onClick={() => setShown(null)}>
            {t('apiTokens.done')}
          </Button>
        }
      >
        <Alert type="warning" showIcon message={t('apiTokens.onceWarning')} className="api-token-once" />
        <Typography.Paragraph
          copyable={{ text: shown ?? '', tooltips: [t('access.copy'), t('access.copied')] }}
          className="access-code"
          data-testid="api-token-secret"
        >
          <code>{shown}</code>
        </Typography.Paragraph>
        <Typography.Paragraph type="secondary">{t('apiTokens.usage')}</Typography.Paragraph>
      </Modal>
    </Card>
  );
}
