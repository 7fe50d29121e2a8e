import type { CensusRatingComment, Guard } from '@parley/protocol';
import { Card, Empty, Rate, Select, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useCan } from '../../lib/access';
import { formatDateTime } from '../../lib/format';
import { HISTORY_DETAIL } from '../history/HistoryPage';
import { DetailLink } from '../shared/detail';

/** The history detail's own guard (routes.ts): without it the comment stays, the link does not. */
const SEE_HISTORY: Guard = { permission: ['seePermissions:seeHistorical'], mode: 'oneOf' };

interface Props {
  comments: readonly CensusRatingComment[];
  agents: readonly { serviceID: string; nickname: string }[];
  /** The agent whose comments are shown; undefined for everyone's. */
  agent: string | undefined;
  onAgent(serviceID: string | undefined): void;
  loading: boolean;
}

/** The visitors' latest comments with their ratings (`/census/service/evaluate`), newest first. */
export function RatingComments({ comments, agents, agent, onAgent, loading }: Props) {
  const { t } = useTranslation();
  const seeHistory = useCan(SEE_HISTORY);
  const filter = (
    <Select
      size="small"
      allowClear
      showSearch={{ optionFilterProp: 'label' }}
      className="census-comments-agent"
      placeholder={t('census.comments.allAgents')}
      aria-label={t('census.f.agent')}
      value={agent}
      onChange={(value: string | undefined) => onAgent(value)}
      options={agents.map((row) => ({ value: row.serviceID, label: row.nickname }))}
      data-testid="census-comments-agent"
    />
  );
  return (
    <Card size="small" title={t('census.comments.title')} extra={filter} loading={loading && comments.length === 0}>
      {comments.length === 0 ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('census.comments.empty')} />
      ) : (
        <ul className="census-comments" data-testid="census-comments">
          {comments.map((row) => (
            <li key={row.conversationId} className="census-comment" data-testid="census-comment">
              <div className="census-comment-head">
                <Rate disabled value={row.score} className="census-comment-score" aria-label={t('census.stars', { score: row.score })} />
                <Typography.Text type="secondary" className="census-comment-meta">
                  {t('census.comments.meta', {
                    visitor: row.visitorNickname,
                    agent: row.agentNickname || t('census.comments.noAgent'),
                  })}
                </Typography.Text>
                <Typography.Text type="secondary" className="census-comment-date">
                  {formatDateTime(row.startedAt)}
                </Typography.Text>
                {seeHistory && (
                  <DetailLink path={HISTORY_DETAIL} params={{ id: row.conversationId }}>
                    {t('census.comments.open')}
                  </DetailLink>
                )}
              </div>
              {/* Visitor text: a text node, never markup. */}
              <Typography.Paragraph className="census-comment-text">{row.comment}</Typography.Paragraph>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
