import { MessageOutlined, RightOutlined, RobotOutlined } from '@ant-design/icons';
import { Badge, Card, Skeleton, Statistic, Typography } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { routeTitle } from '../../lib/i18n';
import { ASK_ROBOT_PATH, HIGH_ROBOT_PATH, useHighRobot, usePairCounts } from './queries';
import './robot.css';

/** One size for counts and words alike, so the two cards read as a pair. */
const STAT = { content: { fontSize: 20 } };

function RobotCard(props: { to: string; icon: ReactNode; title: string; text: string; testId: string; children: ReactNode }) {
  const { t } = useTranslation();
  return (
    <Link to={props.to} className="robot-card-link" data-testid={props.testId}>
      <Card hoverable className="robot-card">
        <div className="robot-card-head">
          <span className="robot-card-icon" aria-hidden>
            {props.icon}
          </span>
          <div>
            <Typography.Title level={5}>{props.title}</Typography.Title>
            <Typography.Text type="secondary">{props.text}</Typography.Text>
          </div>
        </div>
        <div className="robot-card-stats">{props.children}</div>
        <div className="robot-card-open">
          {t('robots.index.open')} <RightOutlined />
        </div>
      </Card>
    </Link>
  );
}

/** The two robots at a glance: how large the knowledge base is, and whether and when the smart robot answers. */
export default function RobotIndexPage() {
  const { t } = useTranslation();
  const counts = usePairCounts();
  const high = useHighRobot();
  return (
    <div className="page-card robot-index" data-testid="robot-index-page">
      <Typography.Title level={4}>{routeTitle('robot')}</Typography.Title>
      <div className="robot-cards">
        <RobotCard
          to={ASK_ROBOT_PATH}
          icon={<MessageOutlined />}
          title={routeTitle('askRobot')}
          text={t('robots.index.askText')}
          testId="robot-card-ask"
        >
          {counts.loading ? (
            <Skeleton active paragraph={false} />
          ) : (
            <>
              <Statistic title={t('robots.index.pairs')} styles={STAT} value={counts.all ?? '-'} data-testid="robot-pairs" />
              <Statistic
                title={t('robots.index.enabledPairs')}
                styles={STAT}
                value={counts.enabled ?? '-'}
                data-testid="robot-pairs-enabled"
              />
            </>
          )}
        </RobotCard>
        <RobotCard
          to={HIGH_ROBOT_PATH}
          icon={<RobotOutlined />}
          title={routeTitle('highRobot')}
          text={t('robots.index.highText')}
          testId="robot-card-high"
        >
          {high.data ? (
            <>
              <Statistic
                styles={STAT}
                title={t('robots.index.state')}
                valueRender={() => (
                  <Badge
                    status={high.data.enabled ? 'success' : 'default'}
                    text={t(high.data.enabled ? 'robots.index.on' : 'robots.index.off')}
                    data-testid="robot-high-state"
                  />
                )}
              />
              <Statistic
                styles={STAT}
                title={t('robots.high.mode')}
                valueRender={() => <span data-testid="robot-high-mode">{t(`robots.high.modes.${high.data.mode}`)}</span>}
              />
            </>
          ) : (
            <Skeleton active paragraph={false} />
          )}
        </RobotCard>
      </div>
    </div>
  );
}
