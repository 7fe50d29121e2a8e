import { DesktopOutlined, MobileOutlined } from '@ant-design/icons';
import type { AccountSession } from '@parley/protocol';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Button, Flex, List, Popconfirm, Skeleton, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { call } from '../../lib/api';
import { toastSuccess } from '../../lib/feedback';
import { formatDateTime } from '../../lib/format';
import { endSession } from '../../lib/request';
import { sessionsKey, useSessions } from './queries';
import { describeBrowser } from './userAgent';

function SessionRow({ session, ending, onEnd }: { session: AccountSession; ending: boolean; onEnd: () => void }) {
  const { t } = useTranslation();
  const browser = describeBrowser(session.userAgent);
  const name = [browser.name, browser.system].filter(Boolean).join(' · ') || t('account.unknownBrowser');
  return (
    <List.Item
      data-testid="session-row"
      data-current={session.current || undefined}
      actions={[
        <Popconfirm
          key="end"
          title={t(session.current ? 'account.endCurrentConfirm' : 'account.endConfirm')}
          okText={t('account.end')}
          cancelText={t('common.cancel')}
          okButtonProps={{ danger: true }}
          onConfirm={onEnd}
        >
          <Button size="small" danger={!session.current} loading={ending} data-testid="session-end">
            {t(session.current ? 'account.signOut' : 'account.end')}
          </Button>
        </Popconfirm>,
      ]}
    >
      <List.Item.Meta
        avatar={browser.mobile ? <MobileOutlined className="account-device" /> : <DesktopOutlined className="account-device" />}
        title={
          <Flex gap={8} wrap align="center">
            <span title={session.userAgent}>{name}</span>
            {session.current ? <Tag color="blue">{t('account.thisDevice')}</Tag> : null}
          </Flex>
        }
        description={
          <Flex vertical>
            <span>
              {t('account.address')}: {session.ip || '-'}
            </span>
            <span>{t('account.signedInAt', { time: formatDateTime(session.createdAt) })}</span>
            <span>{t('account.lastUsed', { time: formatDateTime(session.lastUsedAt ?? session.createdAt) })}</span>
          </Flex>
        }
      />
    </List.Item>
  );
}

/** The personal page's sessions: where the account is signed in, and ending any of them at once. */
export function SessionsSection() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const sessions = useSessions();
  const revoke = useMutation({
    mutationFn: (ids: number[]) => call('POST /api/personal/sessions/revoke', { ids }),
    onSuccess: async (_answer, ids) => {
      const current = sessions.data?.find((session) => session.current);
      // Ending this very session signs this browser out, as the header's sign-out does.
      if (current && ids.includes(current.id)) {
        endSession();
        return;
      }
      toastSuccess(t(ids.length > 1 ? 'account.endedOthers' : 'account.ended'));
      await queryClient.invalidateQueries({ queryKey: sessionsKey });
    },
  });

  if (!sessions.data) return <Skeleton active />;
  const others = sessions.data.filter((session) => !session.current).map((session) => session.id);
  return (
    <Flex vertical gap={8} data-testid="sessions-section">
      <Typography.Text type="secondary">{t('account.sessionsHint')}</Typography.Text>
      <List
        itemLayout="horizontal"
        // This browser first, then the others newest first (as the server lists them).
        dataSource={[...sessions.data].sort((a, b) => Number(b.current) - Number(a.current))}
        rowKey="id"
        renderItem={(session) => (
          <SessionRow
            session={session}
            ending={revoke.isPending && revoke.variables.includes(session.id)}
            onEnd={() => revoke.mutate([session.id])}
          />
        )}
      />
      {others.length > 0 ? (
        <div>
          <Popconfirm
            title={t('account.endOthersConfirm')}
            okText={t('account.endOthers')}
            cancelText={t('common.cancel')}
            okButtonProps={{ danger: true }}
            onConfirm={() => revoke.mutate(others)}
          >
            <Button danger data-testid="sessions-end-others">
              {t('account.endOthers')}
            </Button>
          </Popconfirm>
        </div>
      ) : null}
    </Flex>
  );
}
