import { CENSUS_DIMS, CENSUS_SERVICE_KINDS, CENSUS_TALK_DIMS } from '@parley/protocol';
import { Card, Col, Row, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { currentLanguage, formatCount } from '../../lib/format';
import { Chart } from './Chart';
import { trendOption, twoScaleTrendOption } from './charts';
import { DateRangeBar } from './DateRangeBar';
import { formatMs, formatScore, formatShare } from './figures';
import { KpiCard } from './KpiCard';
import { useCensusOverview } from './queries';
import { useCensusRange } from './store';

type Figure = 'visitors' | 'conversations' | 'conversion' | 'firstResponseMs' | 'averageScore';

/** Where each analysis page lives, grouped as the overview links them. */
const GROUPS = [
  { key: 'flow', links: CENSUS_DIMS.map((dim) => ({ path: `/census/flow/${dim}`, title: `route.flow_${dim}` })) },
  { key: 'talk', links: CENSUS_TALK_DIMS.map((dim) => ({ path: `/census/talk/${dim}`, title: `route.talk_${dim}` })) },
  {
    key: 'service',
    links: CENSUS_SERVICE_KINDS.map((kind) => ({ path: `/census/service/${kind}`, title: `route.serviceCensus_${kind}` })),
  },
] as const;

/** The statistics at a glance (`/census/census`): today and the chosen range against the one before, and the way to each analysis. */
export default function OverviewPage() {
  const { t } = useTranslation();
  const language = currentLanguage();
  const range = useCensusRange();
  const { data } = useCensusOverview(range);
  const count = (value: number) => formatCount(value, language);
  const figures: { key: Figure; format: (value: number) => string; lowerIsBetter?: boolean }[] = [
    { key: 'visitors', format: count },
    { key: 'conversations', format: count },
    { key: 'conversion', format: (value) => formatShare(value, language) },
    { key: 'firstResponseMs', format: formatMs, lowerIsBetter: true },
    { key: 'averageScore', format: formatScore },
  ];
  const trend = data?.trend ?? [];
  const days = trend.map((point) => point.day);
  return (
    <div className="census-page" data-testid="census-overview">
      <DateRangeBar />
      <Row gutter={[16, 16]} className="census-kpis">
        {figures.map((figure) => {
          const today = data ? data.today[figure.key] : null;
          return (
            <Col key={figure.key} xs={12} md={8} xl={4}>
              <KpiCard
                title={t(`census.f.${figure.key}`)}
                value={data ? data.range[figure.key] : null}
                previous={data ? data.previous[figure.key] : null}
                format={figure.format}
                lowerIsBetter={figure.lowerIsBetter}
                footer={t('census.todayValue', { value: today === null ? '-' : figure.format(today) })}
                testId={`kpi-${figure.key}`}
              />
            </Col>
          );
        })}
        <Col xs={12} md={8} xl={4}>
          <KpiCard
            title={t('census.f.agentsOnline')}
            value={data ? data.agentsOnline : null}
            format={count}
            footer={t('census.ofAgents', { total: data ? data.agentsTotal : '-' })}
            testId="kpi-agentsOnline"
          />
        </Col>
      </Row>
      <Row gutter={[16, 16]}>
        <Col xs={24} xl={12}>
          <Card size="small" title={t('census.trendTraffic')}>
            <Chart
              testId="census-chart"
              label={t('census.trendTraffic')}
              option={trendOption(days, [
                { name: t('census.f.visitors'), data: trend.map((point) => point.visitors) },
                { name: t('census.f.conversations'), data: trend.map((point) => point.conversations) },
              ])}
            />
          </Card>
        </Col>
        <Col xs={24} xl={12}>
          <Card size="small" title={t('census.trendService')}>
            <Chart
              testId="census-service-trend"
              label={t('census.trendService')}
              option={twoScaleTrendOption(
                days,
                {
                  name: t('census.f.firstResponseSeconds'),
                  data: trend.map((point) => (point.firstResponseMs === null ? null : Math.round(point.firstResponseMs / 1000))),
                },
                { name: t('census.f.averageScore'), data: trend.map((point) => point.averageScore) },
                5,
              )}
            />
          </Card>
        </Col>
      </Row>
      <Row gutter={[16, 16]}>
        {GROUPS.map((group) => (
          <Col key={group.key} xs={24} md={8}>
            <Card size="small" title={t(`census.group.${group.key}`)} data-testid={`census-links-${group.key}`}>
              <ul className="census-links">
                {group.links.map((link) => (
                  <li key={link.path}>
                    <Link to={link.path}>{t(link.title)}</Link>
                  </li>
                ))}
              </ul>
              <Typography.Text type="secondary">{t(`census.groupHint.${group.key}`)}</Typography.Text>
            </Card>
          </Col>
        ))}
      </Row>
    </div>
  );
}
