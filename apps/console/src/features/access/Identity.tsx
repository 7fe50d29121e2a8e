import { ReloadOutlined } from '@ant-design/icons';
import { ADMIN_ROLE } from '@parley/protocol';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Card, Popconfirm, Skeleton, Space, Switch, Tabs, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useAccess } from '../../lib/access';
import { call } from '../../lib/api';
import { toastSuccess } from '../../lib/feedback';

/** The hash a site's server computes (CONTRACT §13), in the languages sites are most often written in. */
const SNIPPETS: { key: string; label: string; code: string }[] = [
  {
    key: 'node',
    label: 'Node.js',
    code: `import { createHmac } from 'node:crypto';

const hash = createHmac('sha256', process.env.PARLEY_IDENTITY_SECRET).update(user.id).digest('hex');`,
  },
  {
    key: 'php',
    label: 'PHP',
    code: `<?php
$hash = hash_hmac('sha256', (string) $user->id, getenv('PARLEY_IDENTITY_SECRET'));`,
  },
  {
    key: 'python',
    label: 'Python',
    code: `import hashlib, hmac, os

hash = hmac.new(os.environ["PARLEY_IDENTITY_SECRET"].encode(), str(user.id).encode(), hashlib.sha256).hexdigest()`,
  },
  {
    key: 'java',
    label: 'Java',
    code: `import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

Mac mac = Mac.getInstance("HmacSHA256");
mac.init(new SecretKeySpec(System.getenv("PARLEY_IDENTITY_SECRET").getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
String hash = HexFormat.of().formatHex(mac.doFinal(userId.getBytes(StandardCharsets.UTF_8)));`,
  },
];

const IDENTIFY = `Parley('identify', { id: '<user id>', hash: '<hash from your server>', name, email, attributes: { plan: 'pro' } });
// At sign-out:
Parley('reset');`;

/**
 * Verified visitor identity (CONTRACT §13), for the Admin: the secret the site's server signs user ids
 * with, its rotation, whether anonymous visitors may chat, and how to compute the hash.
 */
export function Identity() {
  const { t } = useTranslation();
  const admin = useAccess().roles.includes(ADMIN_ROLE);
  const client = useQueryClient();
  const secret = useQuery({ queryKey: ['identitySecret'], queryFn: () => call('GET /api/access/identitySecret'), enabled: admin });
  const page = useQuery({ queryKey: ['settings', 'appSetting'], queryFn: () => call('GET /api/settings/appSetting'), enabled: admin });
  const rotate = useMutation({
    mutationFn: () => call('POST /api/access/identitySecret/rotate'),
    onSuccess: (data) => {
      client.setQueryData(['identitySecret'], data);
      toastSuccess(t('access.identity.rotated'));
    },
  });
  const require = useMutation({
    mutationFn: async (on: boolean) => {
      if (!page.data) return;
      // The page as stored, with its secret left empty (kept), and the flag changed.
      return call('POST /api/settings/appSetting', { ...page.data, requireIdentity: on });
    },
    onSuccess: (data) => {
      if (data) client.setQueryData(['settings', 'appSetting'], data);
      toastSuccess(t('access.identity.saved'));
    },
  });
  if (!admin) return null;
  const copyable = (text: string) => ({ text, tooltips: [t('access.copy'), t('access.copied')] });
  return (
    <Card title={t('access.identity.title')} className="access-card" data-testid="access-identity">
      <Typography.Paragraph type="secondary">{t('access.identity.hint')}</Typography.Paragraph>
      {secret.data ? (
        <Space wrap align="center" className="access-identity-secret">
          <Typography.Text strong>{t('access.identity.secret')}</Typography.Text>
          <Typography.Text code copyable={copyable(secret.data.identitySecret)} data-testid="access-identity-secret">
            {secret.data.identitySecret}
          </Typography.Text>
          <Popconfirm
            title={t('access.identity.rotateConfirm')}
            okText={t('access.identity.rotate')}
            cancelText={t('common.cancel')}
            onConfirm={() => rotate.mutate()}
          >
            <Button icon={<ReloadOutlined />} loading={rotate.isPending} data-testid="access-identity-rotate">
              {t('access.identity.rotate')}
            </Button>
          </Popconfirm>
        </Space>
      ) : (
        <Skeleton active paragraph={false} />
      )}
      <Space align="center" className="access-identity-require">
        <Switch
          checked={page.data?.requireIdentity === true}
          loading={require.isPending || page.isLoading}
          onChange={(on) => require.mutate(on)}
          aria-label={t('access.identity.require')}
          data-testid="access-identity-require"
        />
        <span>
          <Typography.Text strong>{t('access.identity.require')}</Typography.Text>
          <br />
          <Typography.Text type="secondary">{t('access.identity.requireHint')}</Typography.Text>
        </span>
      </Space>
      <Typography.Paragraph className="access-identity-step">{t('access.identity.serverStep')}</Typography.Paragraph>
      <Tabs
        size="small"
        items={SNIPPETS.map((snippet) => ({
          key: snippet.key,
          label: snippet.label,
          children: (
            <Typography.Paragraph copyable={copyable(snippet.code)} className="access-code">
              <pre>{snippet.code}</pre>
            </Typography.Paragraph>
          ),
        }))}
      />
      <Typography.Paragraph className="access-identity-step">{t('access.identity.pageStep')}</Typography.Paragraph>
      <Typography.Paragraph copyable={copyable(IDENTIFY)} className="access-code">
        <pre>{IDENTIFY}</pre>
      </Typography.Paragraph>
    </Card>
  );
}
