import { ArrowRightOutlined, SafetyCertificateOutlined, TeamOutlined, UserOutlined } from '@ant-design/icons';
import { can, type HomeOverview } from '@parley/protocol';
import { useQuery } from '@tanstack/react-query';
import { Avatar, Card, Col, Row, Statistic, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { greetingKey } from '../../app/header/search';
import { RouteIcon } from '../../app/icons';
import type { MenuNode } from '../../app/routeTree';
import { useRouteState } from '../../app/useRouteState';
import { call } from '../../lib/api';
import { formatDateTime } from '../../lib/format';
import { useUserInfo } from '../auth/queries';

function leavesOf(nodes: MenuNode[]): MenuNode[] {
  return nodes.flatMap((node) => (node.children ? leavesOf(node.children) : [node]));
}

type LiveFigure = Extract<
  keyof HomeOverview,
  'visitorsOnline' | 'waiting' | 'inConversation' | 'visitorsToday' | 'conversationsToday' | 'unreadLetters'
>;

const OVERVIEW_REFRESH_MS = 15_000;

/** The home page's figures in one call; the server leaves out those the user may not see. */
function useOverview() {
  return useQuery({
    queryKey: ['home', 'overview'],
    queryFn: () => call('GET /api/home/overview', undefined, { silent: true }),
    refetchInterval: OVERVIEW_REFRESH_MS,
  });
}

/** The live card's figures, in the order shown; `warn` colours a figure that asks for attention when not zero. */
const liveFigures: { key: LiveFigure; title: string; warn?: boolean }[] = [
  { key: 'visitorsOnline', title: 'home.onlineVisitors' },
  { key: 'waiting', title: 'home.waiting', warn: true },
  { key: 'inConversation', title: 'home.inConversation' },
  { key: 'visitorsToday', title: 'home.visitorsToday' },
  { key: 'conversationsToday', title: 'home.conversationsToday' },
  { key: 'unreadLetters', title: 'home.unreadLetters', warn: true },
];

export default function HomePage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { data: info } = useUserInfo();
  const holder = info ?? { roles: [], permissions: [] };
  const { menu } = useRouteState();
  const canAgents = can(holder, { permission: ['setPermissions:service'] });
  const canRecords = can(holder, { permission: ['seePermissions:seeLoginRecord'] });
  const overview = useOverview();
  const figures = overview.data;
  // Until the figures arrive, the user's permissions say which cards will have one.
  const showAgents = figures ? figures.agentsOnline !== undefined : canAgents;
  const showSignIns = figures ? figures.signInsToday !== undefined : canRecords;
  const lastLogins = useQuery({
    queryKey: ['home', 'lastLogins'],
    queryFn: () => call('GET /api/record/getList', { pageNo: 1, pageSize: 5 }, { silent: true }),
    enabled: canRecords,
  });
  const shortcuts = leavesOf(menu).filter((node) => node.key !== '/index');
  const greeting = t(`home.greeting.${greetingKey(new Date().getHours())}`);

  return (
    <div className="home-page" data-testid="home-page">
      <Card className="home-welcome" variant="borderless">
        <div className="home-welcome-inner">
          <Avatar size={64} src={info?.avatar || undefined} icon={<UserOutlined />} />
          <div>
            <Typography.Title level={3} className="home-hello">
              {t('home.hello', { greeting, name: info?.username ?? '' })}
            </Typography.Title>
            <Typography.Text type="secondary">{t('home.subtitle')}</Typography.Text>
            <div className="home-roles">
              {(info?.roles ?? []).map((role) => (
                <Tag key={role} color="blue" icon={<SafetyCertificateOutlined />}>
                  {role}
                </Tag>
              ))}
            </div>
          </div>
        </div>
      </Card>

      <Row gutter={[16, 16]}>
        {showAgents && (
          <Col xs={12} lg={8}>
            <Card variant="borderless">
              <Statistic
                title={t('home.agentsOnline')}
                value={figures?.agentsOnline ?? '-'}
                suffix={figures?.agentsTotal === undefined ? undefined : `/ ${figures.agentsTotal}`}
                prefix={<TeamOutlined />}
                loading={overview.isPending}
              />
            </Card>
          </Col>
        )}
        {showSignIns && (
          <Col xs={12} lg={8}>
            <Card variant="borderless">
              <Statistic title={t('home.loginsToday')} value={figures?.signInsToday ?? '-'} loading={overview.isPending} />
            </Card>
          </Col>
        )}
        {showSignIns && (
          <Col xs={12} lg={8}>
            <Card variant="borderless">
              <Statistic
                title={t('home.failuresToday')}
                value={figures?.signInFailuresToday ?? '-'}
                loading={overview.isPending}
                valueStyle={figures?.signInFailuresToday ? { color: '#cf1322' } : undefined}
              />
            </Card>
          </Col>
        )}
        <Col xs={24}>
          <Card
            variant="borderless"
            title={t('home.liveTitle')}
            extra={
              <Typography.Link onClick={() => navigate('/workbench/workbench')}>
                {t('home.openWorkbench')} <ArrowRightOutlined />
              </Typography.Link>
            }
          >
            {overview.isError ? (
              <Typography.Text type="secondary">{t('home.liveUnavailable')}</Typography.Text>
            ) : (
              <Row gutter={[16, 16]} data-testid="home-live">
                {liveFigures.map(({ key, title, warn }) => (
                  <Col xs={8} lg={4} key={key}>
                    <Statistic
                      title={t(title)}
                      value={figures?.[key] ?? '-'}
                      loading={overview.isPending}
                      valueStyle={warn && figures?.[key] ? { color: '#d46b08' } : undefined}
                    />
                  </Col>
                ))}
              </Row>
            )}
          </Card>
        </Col>
      </Row>

      <Row gutter={[16, 16]} className="home-row">
        <Col xs={24} lg={canRecords ? 14 : 24}>
          <Card variant="borderless" title={t('home.shortcuts')}>
            <div className="home-shortcuts">
              {shortcuts.map((node) => (
                <button type="button" key={node.key} className="home-shortcut" onClick={() => navigate(node.key)}>
                  <span className="home-shortcut-icon">
                    <RouteIcon name={node.icon} />
                  </span>
                  <span>{t(`route.${node.title}`, { defaultValue: node.title })}</span>
                </button>
              ))}
            </div>
          </Card>
        </Col>
        {canRecords && (
          <Col xs={24} lg={10}>
            <Card
              variant="borderless"
              title={t('home.recentLogins')}
              extra={
                <Typography.Link onClick={() => navigate('/service/record')}>
                  {t('home.viewAll')} <ArrowRightOutlined />
                </Typography.Link>
              }
            >
              <ul className="home-logins">
                {(lastLogins.data?.list ?? []).map((record) => (
                  <li key={record.id}>
                    <Tag color={record.result === 'success' ? 'green' : 'red'}>{t(`record.result.${record.result}`)}</Tag>
                    <span className="home-login-user">{record.username}</span>
                    <span className="home-login-ip">{record.ip}</span>
                    <span className="home-login-time">{formatDateTime(record.created_at)}</span>
                  </li>
                ))}
              </ul>
            </Card>
          </Col>
        )}
      </Row>
    </div>
  );
}
