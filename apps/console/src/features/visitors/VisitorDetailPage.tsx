import { DeleteOutlined } from '@ant-design/icons';
import type { Conversation, VisitorDetail, VisitorRecord } from '@parley/protocol';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Badge, Button, Card, Collapse, Descriptions, Empty, Popconfirm, Rate, Result, Space, Spin, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate, useSearchParams } from 'react-router';
import { call } from '../../lib/api';
import { toastSuccess } from '../../lib/feedback';
import { formatDateTime } from '../../lib/format';
import type { HttpError } from '../../lib/http';
import { useTabs } from '../../stores/tabs';
import { conversationLength, formatDuration } from '../history/format';
import { Transcript } from '../history/Transcript';
import { Visits } from '../history/Visits';
import { VisitorEditForm } from './VisitorEditForm';

const LIST_OF: Record<VisitorRecord['channel'], string> = {
  web: '/user/user',
  officialAccount: '/user/officialAccount',
  miniProgram: '/user/miniProgram',
};

function Profile({ visitor }: { visitor: VisitorRecord }) {
  const { t } = useTranslation();
  const dash = (text: string) => text || '-';
  return (
    <Descriptions
      column={{ xs: 1, sm: 1, md: 2 }}
      size="small"
      bordered
      items={[
        { key: 'nickname', label: t('records.visitor.nickname'), children: visitor.nickname },
        {
          key: 'state',
          label: t('records.visitor.presence'),
          children: (
            <Badge
              status={visitor.online ? 'success' : 'default'}
              text={t(visitor.online ? 'records.visitor.online' : 'records.visitor.offline')}
            />
          ),
        },
        { key: 'channel', label: t('records.channelLabel'), children: t(`records.channel.${visitor.channel}`) },
        { key: 'region', label: t('records.visitor.region'), children: dash(visitor.region) },
        {
          key: 'device',
          label: t('records.visitor.device'),
          children: dash([visitor.device, visitor.platform, visitor.browser].filter(Boolean).join(' · ')),
        },
        { key: 'source', label: t('records.visitor.source'), children: dash(visitor.source) },
        { key: 'engine', label: t('records.visitor.engine'), children: dash(visitor.engine) },
        { key: 'keyword', label: t('records.visitor.searchKeyword'), children: dash(visitor.keyword) },
        { key: 'firstSeen', label: t('records.visitor.firstSeen'), children: formatDateTime(visitor.created_at) },
        { key: 'lastSeen', label: t('records.visitor.lastSeen'), children: formatDateTime(visitor.lastSeen) },
        { key: 'firstUrl', label: t('records.visitor.firstUrl'), span: 'filled', children: dash(visitor.firstUrl) },
        // What the site told of a signed-in visitor (CONTRACT §13): its verified user id and attributes.
        ...(visitor.userId
          ? [
              {
                key: 'userId',
                label: t('records.visitor.userId'),
                span: 'filled' as const,
                children: (
                  <span data-testid="visitor-user-id">
                    {visitor.userId} <Tag color="green">{t('records.visitor.verified')}</Tag>
                  </span>
                ),
              },
            ]
          : []),
        ...(visitor.attributes && Object.keys(visitor.attributes).length > 0
          ? [
              {
                key: 'attributes',
                label: t('records.visitor.attributes'),
                span: 'filled' as const,
                children: (
                  <Space size={[4, 4]} wrap data-testid="visitor-attributes">
                    {Object.entries(visitor.attributes).map(([key, given]) => (
                      <Tag key={key}>{`${key}: ${String(given)}`}</Tag>
                    ))}
                  </Space>
                ),
              },
            ]
          : []),
        {
          key: 'tags',
          label: t('records.visitor.tags'),
          span: 'filled',
          children:
            visitor.tags.length > 0 ? (
              <Space size={[4, 4]} wrap>
                {visitor.tags.map((tag) => (
                  <Tag key={tag}>{tag}</Tag>
                ))}
              </Space>
            ) : (
              '-'
            ),
        },
      ]}
    />
  );
}

/** A conversation's transcript, read when its panel is opened. */
function ConversationTranscript({ conversation }: { conversation: Conversation }) {
  const { t } = useTranslation();
  const detail = useQuery({
    queryKey: ['history', 'detail', conversation.id],
    queryFn: () => call('GET /api/history/detail', { id: conversation.id }, { silent: true }),
    retry: false,
  });
  if (detail.isPending) return <Spin />;
  if (!detail.data) {
    const forbidden = (detail.error as HttpError | null)?.code === 403;
    return <Typography.Text type="secondary">{t(forbidden ? 'records.history.forbidden' : 'records.history.missing')}</Typography.Text>;
  }
  return (
    <>
      {detail.data.conversation.score !== null && (
        <p>
          <Rate disabled value={detail.data.conversation.score} style={{ fontSize: 14 }} /> {detail.data.conversation.comment}
        </p>
      )}
      <Transcript id={String(conversation.id)} messages={detail.data.messages} visitorName={conversation.nickname} />
    </>
  );
}

function Conversations({ conversations }: { conversations: Conversation[] }) {
  const { t } = useTranslation();
  if (conversations.length === 0) return <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('records.visitor.noConversations')} />;
  return (
    <Collapse
      accordion
      destroyOnHidden
      data-testid="visitor-conversations"
      items={conversations.map((conversation) => ({
        key: conversation.id,
        label: (
          <Space wrap size={[12, 0]}>
            <span>{formatDateTime(conversation.startedAt)}</span>
            <span>{conversation.agentNickname || t('records.history.noAgent')}</span>
            <span className="records-muted">{t('records.history.messageCount', { count: conversation.messages })}</span>
            {conversation.endedAt ? (
              <span className="records-muted">{formatDuration(conversationLength(conversation))}</span>
            ) : (
              <Tag color="processing">{t('records.history.open')}</Tag>
            )}
          </Space>
        ),
        children: <ConversationTranscript conversation={conversation} />,
      }))}
    />
  );
}

/** Everything known of one visitor: profile, notes, every conversation and page; and erasure on request. */
export default function VisitorDetailPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const { pathname, search } = useLocation();
  const navigate = useNavigate();
  const client = useQueryClient();
  const publicId = params.get('YQToken') ?? '';
  const key = ['user', 'detail', publicId] as const;
  const detail = useQuery({
    queryKey: key,
    queryFn: () => call('GET /api/user/detail', { YQToken: publicId }, { silent: true }),
    enabled: publicId !== '',
    retry: false,
  });
  const save = useMutation({
    mutationFn: (values: Pick<VisitorRecord, 'name' | 'phone' | 'email' | 'remark' | 'tags'>) =>
      call('POST /api/user/doEdit', { YQToken: publicId, ...values }),
    onSuccess: (visitor) => {
      client.setQueryData<VisitorDetail>(key, (old) => (old ? { ...old, visitor } : old));
      toastSuccess(t('common.saved'));
      return client.invalidateQueries({ queryKey: ['user', 'list'] });
    },
  });
  const erase = useMutation({
    mutationFn: () => call('POST /api/user/doDelete', { ids: [publicId] }),
    onSuccess: () => {
      const channel = detail.data?.visitor.channel ?? 'web';
      toastSuccess(t('records.visitor.erased'));
      client.removeQueries({ queryKey: key });
      void client.invalidateQueries({ queryKey: ['user'] });
      void client.invalidateQueries({ queryKey: ['history'] });
      useTabs.getState().close(`${pathname}${search}`);
      navigate(LIST_OF[channel]);
    },
  });

  if (detail.isPending && detail.fetchStatus !== 'idle') return <Spin className="page-card" />;
  if (!detail.data) {
    return (
      <div className="page-card">
        <Result status="404" title={t('records.visitor.missing')} />
      </div>
    );
  }
  const { visitor, visits, conversations } = detail.data;
  return (
    <div className="page-card records-detail" data-testid="visitor-detail">
      <div>
        <Card title={t('records.visitor.profile')} size="small">
          <Profile visitor={visitor} />
        </Card>
        <Card title={`${t('records.visitor.conversationsTitle')} (${conversations.length})`} size="small">
          <Conversations conversations={conversations} />
        </Card>
      </div>
      <div>
        <Card title={t('records.visitor.notes')} size="small">
          <VisitorEditForm key={visitor.YQToken} visitor={visitor} saving={save.isPending} onSave={(values) => save.mutate(values)} />
        </Card>
        <Card title={`${t('records.visits')} (${visitor.visits})`} size="small">
          <Visits visits={visits} />
        </Card>
        <Card title={t('records.visitor.privacy')} size="small">
          <Typography.Paragraph type="secondary">{t('records.visitor.eraseHint')}</Typography.Paragraph>
          <Popconfirm
            title={t('records.visitor.eraseTitle', { name: visitor.nickname })}
            description={t('records.visitor.eraseConfirm')}
            okText={t('records.visitor.eraseOk')}
            okButtonProps={{ danger: true, loading: erase.isPending }}
            cancelText={t('common.cancel')}
            onConfirm={() => erase.mutateAsync()}
          >
            <Button danger icon={<DeleteOutlined />} data-testid="visitor-erase">
              {t('records.visitor.erase')}
            </Button>
          </Popconfirm>
        </Card>
      </div>
    </div>
  );
}
