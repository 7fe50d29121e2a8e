import type { CensusAgentState, CensusServiceEvaluateRow, CensusServiceStateRow, CensusServiceTalkRow } from '@parley/protocol';
import { Card, Col, Row, Tag, theme } from 'antd';
import { type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { downloadCsv } from '../../lib/api';
import { currentLanguage, formatCount } from '../../lib/format';
import { routeTitle } from '../../lib/i18n';
import { type CensusColumn, CensusTable, ExportButton } from './CensusTable';
import { Chart } from './Chart';
import { agentBarsOption, heightFor, shareOption } from './charts';
import { DateRangeBar } from './DateRangeBar';
import { formatHours, formatMs, formatScore, hoursOf } from './figures';
import { KpiCard } from './KpiCard';
import { useCensusService } from './queries';
import { RatingComments } from './RatingComments';
import { type CensusRangeValue, useCensusRange } from './store';

const SCORES = [5, 4, 3, 2, 1] as const;

/** The frame the three agent pages share: range and export, then what the page draws. */
function ServiceFrame({ kind, range, children }: { kind: 'talk' | 'evaluate' | 'state'; range: CensusRangeValue; children: ReactNode }) {
  return (
    <div className="census-page" data-testid={`census-service-${kind}`}>
      <DateRangeBar
        extra={<ExportButton fetch={() => downloadCsv('GET /api/census/service', { kind, from: range.from, to: range.to })} />}
      />
      {children}
    </div>
  );
}

function ChartCard({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Card size="small" title={title}>
      {children}
    </Card>
  );
}

/** Conversations, messages, response times and transfers per agent (`/census/service/talk`). */
export function ServiceTalkPage() {
  const { t } = useTranslation();
  const language = currentLanguage();
  const range = useCensusRange();
  const query = useCensusService('talk', range);
  const rows = query.data?.kind === 'talk' ? query.data.list : [];
  const count = (value: number) => formatCount(value, language);
  const columns: CensusColumn<CensusServiceTalkRow>[] = [
    { key: 'nickname', title: 'census.f.agent', render: (row) => row.nickname, width: 160 },
    ...(['conversations', 'messages'] as const).map((key) => ({
      key,
      title: `census.f.${key}`,
      value: (row: CensusServiceTalkRow) => row[key],
      render: (row: CensusServiceTalkRow) => count(row[key]),
    })),
    ...(['firstResponseMs', 'durationMs'] as const).map((key) => ({
      key,
      title: `census.f.${key}`,
      value: (row: CensusServiceTalkRow) => row[key],
      render: (row: CensusServiceTalkRow) => (row[key] === null ? '-' : formatMs(row[key])),
    })),
    { key: 'transfers', title: 'census.f.transfers', value: (row) => row.transfers, render: (row) => count(row.transfers) },
  ];
  const title = t('census.perAgent');
  return (
    <ServiceFrame kind="talk" range={range}>
      <ChartCard title={title}>
        <Chart
          testId="census-chart"
          label={title}
          height={heightFor(rows.length, 44)}
          option={agentBarsOption(
            rows.map((row) => row.nickname),
            (['conversations', 'transfers'] as const).map((key) => ({ name: t(`census.f.${key}`), data: rows.map((row) => row[key]) })),
          )}
        />
      </ChartCard>
      <Card size="small" title={routeTitle('serviceCensus_talk')} className="census-table-card">
        <CensusTable rows={rows} columns={columns} rowKey={(row) => row.serviceID} loading={query.isFetching} testId="census-table" />
      </Card>
    </ServiceFrame>
  );
}

/** Ratings: the distribution overall and per agent (`/census/service/evaluate`). */
export function ServiceEvaluatePage() {
  const { t } = useTranslation();
  const language = currentLanguage();
  const range = useCensusRange();
  const [commentsOf, setCommentsOf] = useState<string | undefined>();
  const query = useCensusService('evaluate', range, commentsOf);
  const data = query.data?.kind === 'evaluate' ? query.data : null;
  const rows = data?.list ?? [];
  const count = (value: number) => formatCount(value, language);
  const stars = (score: number) => t('census.stars', { score });
  const columns: CensusColumn<CensusServiceEvaluateRow>[] = [
    { key: 'nickname', title: 'census.f.agent', render: (row) => row.nickname, width: 160 },
    { key: 'rated', title: 'census.f.rated', value: (row) => row.rated, render: (row) => count(row.rated) },
    {
      key: 'averageScore',
      title: 'census.f.averageScore',
      value: (row) => row.averageScore,
      render: (row) => (row.averageScore === null ? '-' : formatScore(row.averageScore)),
    },
    ...SCORES.map((score) => ({
      key: `score${score}`,
      title: stars(score),
      value: (row: CensusServiceEvaluateRow) => row.scores[score],
      render: (row: CensusServiceEvaluateRow) => count(row.scores[score]),
    })),
  ];
  const distribution = t('census.distribution');
  const perAgent = t('census.perAgent');
  return (
    <ServiceFrame kind="evaluate" range={range}>
      <Row gutter={[16, 16]} className="census-kpis">
        <Col xs={12} md={6}>
          <KpiCard title={t('census.f.rated')} value={data ? data.overall.rated : null} format={count} testId="kpi-rated" />
        </Col>
        <Col xs={12} md={6}>
          <KpiCard
            title={t('census.f.averageScore')}
            value={data ? data.overall.averageScore : null}
            format={formatScore}
            testId="kpi-averageScore"
          />
        </Col>
      </Row>
      <Row gutter={[16, 16]}>
        <Col xs={24} lg={10}>
          <ChartCard title={distribution}>
            <Chart
              testId="census-chart"
              label={distribution}
              option={shareOption(
                SCORES.map((score) => ({ name: stars(score), value: data?.overall.scores[score] ?? 0 })).filter((slice) => slice.value > 0),
                t('census.f.rated'),
              )}
            />
          </ChartCard>
        </Col>
        <Col xs={24} lg={14}>
          <ChartCard title={perAgent}>
            <Chart
              testId="census-agents"
              label={perAgent}
              height={Math.max(320, heightFor(rows.length, 36))}
              option={agentBarsOption(
                rows.map((row) => row.nickname),
                SCORES.map((score) => ({ name: stars(score), data: rows.map((row) => row.scores[score]), stack: 'scores' })),
              )}
            />
          </ChartCard>
        </Col>
      </Row>
      <RatingComments comments={data?.comments ?? []} agents={rows} agent={commentsOf} onAgent={setCommentsOf} loading={query.isFetching} />
      <Card size="small" title={routeTitle('serviceCensus_evaluate')} className="census-table-card">
        <CensusTable rows={rows} columns={columns} rowKey={(row) => row.serviceID} loading={query.isFetching} testId="census-table" />
      </Card>
    </ServiceFrame>
  );
}

const STATE_COLOURS: Record<CensusAgentState, string> = { online: 'success', hidden: 'warning', offline: 'default' };

/** Time online, hidden and offline per agent, and who is on now (`/census/service/state`). */
export function ServiceStatePage() {
  const { t } = useTranslation();
  const language = currentLanguage();
  const range = useCensusRange();
  const query = useCensusService('state', range);
  const rows = query.data?.kind === 'state' ? query.data.list : [];
  const { token } = theme.useToken();
  const states = ['onlineMs', 'hiddenMs', 'offlineMs'] as const;
  const stateColours = { onlineMs: token.colorSuccess, hiddenMs: token.colorWarning, offlineMs: token.colorTextQuaternary };
  const columns: CensusColumn<CensusServiceStateRow>[] = [
    { key: 'nickname', title: 'census.f.agent', render: (row) => row.nickname, width: 160 },
    {
      key: 'now',
      title: 'census.f.now',
      value: (row) => row.now,
      align: 'left',
      render: (row) => <Tag color={STATE_COLOURS[row.now]}>{t(`census.state.${row.now}`)}</Tag>,
    },
    ...states.map((key) => ({
      key,
      title: `census.f.${key}`,
      value: (row: CensusServiceStateRow) => row[key],
      render: (row: CensusServiceStateRow) => formatHours(row[key], language),
    })),
  ];
  const title = t('census.hoursPerAgent');
  return (
    <ServiceFrame kind="state" range={range}>
      <ChartCard title={title}>
        <Chart
          testId="census-chart"
          label={title}
          height={heightFor(rows.length, 36)}
          option={agentBarsOption(
            rows.map((row) => row.nickname),
            states.map((key) => ({
              name: t(`census.f.${key}`),
              data: rows.map((row) => hoursOf(row[key])),
              stack: 'time',
              colour: stateColours[key],
            })),
          )}
        />
      </ChartCard>
      <Card size="small" title={routeTitle('serviceCensus_state')} className="census-table-card">
        <CensusTable rows={rows} columns={columns} rowKey={(row) => row.serviceID} loading={query.isFetching} testId="census-table" />
      </Card>
    </ServiceFrame>
  );
}
