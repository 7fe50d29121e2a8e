import { ArrowRightOutlined, SafetyCertificateOutlined, TeamOutlined, UserOutlined } from '@ant-design/icons';
import { can } from '@parley/protocol';
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

/** A total from a list endpoint, fetched only when the user may read it. */
function useTotal(
  key: 'GET /api/service/getList' | 'GET /api/record/getList',
  allowed: boolean,
  params: { from?: string; to?: string; result?: 'failure' } = {},
) {
  return useQuery({
    queryKey: ['home', key, params],
    queryFn: () => call(key, { pageNo: 1, pageSize: 1, ...params }, { silent: true }),
    enabled: allowed,
  });
}

const LIVE_REFRESH_MS = 15_000;

/** Live figures from the visitors the server reports as online or in an open conversation. */
function useLiveFigures() {
  return useQuery({
    queryKey: ['home', 'live'],
    queryFn: async () => {
      const { list } = await call('GET /api/talk/userList', undefined, { silent: true });
      return {
        online: list.filter((visitor) => visitor.online).length,
        waiting: list.filter((visitor) => visitor.state === 'wait').length,
        current: list.filter((visitor) => visitor.state === 'current').length,
      };
    },
    refetchInterval: LIVE_REFRESH_MS,
  });
}

export default function HomePage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { data: info } = useUserInfo();
  const holder = info ?? { roles: [], permissions: [] };
  const { menu } = useRouteState();
  const canAgents = can(holder, { permission: ['setPermissions:service'] });
  const canRecords = can(holder, { permission: ['seePermissions:seeLoginRecord'] });
  const agents = useTotal('GET /api/service/getList', canAgents);
  const today = new Date().toISOString().slice(0, 10);
  const logins = useTotal('GET /api/record/getList', canRecords, { from: today, to: today });
  const failures = useTotal('GET /api/record/getList', canRecords, { from: today, to: today, result: 'failure' });
  const lastLogins = useQuery({
    queryKey: ['home', 'lastLogins'],
    queryFn: () => call('GET /api/record/getList', { pageNo: 1, pageSize: 5 }, { silent: true }),
    enabled: canRecords,
  });
  const live = useLiveFigures();
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
        {canAgents && (
          <Col xs={12} lg={8}>
            <Card variant="borderless">
              <Statistic title={t('home.agents')} value={agents.data?.total ?? '-'} prefix={<TeamOutlined />} loading={agents.isPending} />
            </Card>
          </Col>
        )}
        {canRecords && (
          <Col xs={12} lg={8}>
            <Card variant="borderless">
              <Statistic title={t('home.loginsToday')} value={logins.data?.total ?? '-'} loading={logins.isPending} />
            </Card>
          </Col>
        )}
        {canRecords && (
          <Col xs={12} lg={8}>
            <Card variant="borderless">
              <Statistic
                title={t('home.failuresToday')}
                value={failures.data?.total ?? '-'}
                loading={failures.isPending}
                valueStyle={failures.data?.total ? { color: '#cf1322' } : undefined}
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
            {live.isError ? (
              <Typography.Text type="secondary">{t('home.liveUnavailable')}</Typography.Text>
            ) : (
              <Row gutter={[16, 16]} data-testid="home-live">
                <Col xs={8}>
                  <Statistic title={t('home.onlineVisitors')} value={live.data?.online ?? '-'} loading={live.isPending} />
                </Col>
                <Col xs={8}>
                  <Statistic
                    title={t('home.waiting')}
                    value={live.data?.waiting ?? '-'}
                    loading={live.isPending}
                    valueStyle={live.data?.waiting ? { color: '#d46b08' } : undefined}
                  />
                </Col>
                <Col xs={8}>
                  <Statistic title={t('home.inConversation')} value={live.data?.current ?? '-'} loading={live.isPending} />
                </Col>
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
