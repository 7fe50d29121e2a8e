import type { ConversationDetail, Message } from '@parley/protocol';
import { useQuery } from '@tanstack/react-query';
import { Card, Descriptions, Empty, Rate, Result, Spin, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { call } from '../../lib/api';
import { formatDateTime } from '../../lib/format';
import type { HttpError } from '../../lib/http';
import { LabelTags } from '../label/LabelTag';
import { DetailLink } from '../shared/detail';
import { Found } from '../shared/Found';
import { conversationLength, formatDuration } from './format';
import { VISITOR_DETAIL } from './HistoryPage';
import { Transcript } from './Transcript';
import { Visits } from './Visits';

export function ConversationFacts({ detail }: { detail: ConversationDetail }) {
  const { t } = useTranslation();
  const { conversation } = detail;
  const dash = (text: string) => text || '-';
  return (
    <Descriptions
      column={1}
      size="small"
      bordered
      items={[
        {
          key: 'visitor',
          label: t('records.history.visitor'),
          children: (
            <DetailLink path={VISITOR_DETAIL} params={{ YQToken: conversation.YQToken }}>
              {conversation.nickname}
            </DetailLink>
          ),
        },
        { key: 'agent', label: t('records.history.agent'), children: dash(conversation.agentNickname) },
        {
          key: 'labels',
          label: t('labels.column'),
          children: conversation.labels.length > 0 ? <LabelTags labels={conversation.labels} /> : '-',
        },
        { key: 'channel', label: t('records.channelLabel'), children: t(`records.channel.${conversation.channel}`) },
        { key: 'started', label: t('records.history.started'), children: formatDateTime(conversation.startedAt) },
        {
          key: 'ended',
          label: t('records.history.ended'),
          children: conversation.endedAt ? formatDateTime(conversation.endedAt) : t('records.history.open'),
        },
        { key: 'duration', label: t('records.history.duration'), children: dash(formatDuration(conversationLength(conversation))) },
        { key: 'messages', label: t('records.history.messages'), children: conversation.messages },
        { key: 'firstResponse', label: t('records.history.firstResponse'), children: dash(formatDuration(conversation.firstResponseMs)) },
        {
          key: 'rating',
          label: t('records.history.rating'),
          children: conversation.score === null ? t('records.history.notRated') : <Rate disabled value={conversation.score} />,
        },
        { key: 'comment', label: t('records.history.comment'), children: dash(conversation.comment) },
        { key: 'region', label: t('records.visitor.region'), children: dash(conversation.region) },
        { key: 'source', label: t('records.visitor.source'), children: dash(conversation.source) },
        { key: 'keyword', label: t('records.visitor.searchKeyword'), children: dash(conversation.keyword) },
      ]}
    />
  );
}

/**
 * The messages of the conversation that hold the keyword the history was searched for, each with its time
 * and the keyword marked: where the search found it, without reading the whole transcript.
 */
function Matches({ messages, keyword }: { messages: Message[]; keyword: string }) {
  const { t } = useTranslation();
  const wanted = keyword.toLowerCase();
  const found = messages.filter((message) => !message.withdrawn && message.role !== 'tip' && message.msg.toLowerCase().includes(wanted));
  return (
    <Card title={t('records.history.matches', { keyword, count: found.length })} size="small" data-testid="history-matches">
      {found.length === 0 ? (
        <Typography.Text type="secondary">{t('records.history.matchesElsewhere')}</Typography.Text>
      ) : (
        <ul className="records-matches">
          {found.map((message) => (
            <li key={message.id}>
              <Typography.Text type="secondary" className="records-match-time">
                {formatDateTime(message.time)} · {message.nickname}
              </Typography.Text>
              <div className="records-match-text">
                <Found text={message.msg} keyword={keyword} />
              </div>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}

/** One conversation: what was said, who answered, how it was rated, and the pages the visitor saw. */
export default function HistoryDetailPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const id = Number(params.get('id'));
  const keyword = (params.get('keyword') ?? '').trim();
  const detail = useQuery({
    queryKey: ['history', 'detail', id],
    queryFn: () => call('GET /api/history/detail', { id }, { silent: true }),
    enabled: Number.isInteger(id) && id > 0,
    retry: false,
  });
  if (detail.isPending && detail.fetchStatus !== 'idle') return <Spin className="page-card" />;
  if (!detail.data) {
    const code = (detail.error as HttpError | null)?.code;
    return (
      <div className="page-card">
        <Result status={code === 403 ? '403' : '404'} title={t(code === 403 ? 'records.history.forbidden' : 'records.history.missing')} />
      </div>
    );
  }
  const data = detail.data;
  return (
    <div className="page-card records-detail" data-testid="history-detail">
      <div>
        {keyword && <Matches messages={data.messages} keyword={keyword} />}
        <Card title={t('records.history.transcript')} size="small">
          {data.messages.length > 0 ? (
            <Transcript
              id={String(data.conversation.id)}
              messages={data.messages}
              visitorName={data.conversation.nickname}
              notes={data.notes}
            />
          ) : (
            <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} />
          )}
        </Card>
      </div>
      <div>
        <Card title={t('records.history.summary')} size="small">
          <ConversationFacts detail={data} />
        </Card>
        <Card title={t('records.visits')} size="small">
          <Visits visits={data.visits} />
        </Card>
      </div>
    </div>
  );
}
