import type { CensusDim, CensusFlowRow, CensusTalkDim, CensusTalkRow } from '@parley/protocol';
import { Card, Col, Row } from 'antd';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { downloadCsv } from '../../lib/api';
import { currentLanguage, formatCount } from '../../lib/format';
import { type CensusColumn, CensusTable, ExportButton } from './CensusTable';
import { Chart } from './Chart';
import { heightFor, rankingOption, shareOption, topSlices, trendOption } from './charts';
import { DateRangeBar } from './DateRangeBar';
import { formatScore } from './figures';
import { KpiCard } from './KpiCard';
import { useCensusFlow, useCensusTalk } from './queries';
import { useCensusRange } from './store';

/** Dimensions with a handful of values read best as shares; the long-tailed ones as a ranking. */
const SHARE_DIMS: readonly CensusTalkDim[] = ['engine', 'platform'];

/** What the server records as '' for each dimension, said in words. */
export function dimName(t: TFunction, dim: CensusTalkDim, name: string): string {
  if (name === '') return t(`census.unnamed.${dim}`);
  // Channels are stored by their code; people read them in their language.
  return dim === 'channel' ? t(`census.channel.${name}`, { defaultValue: name }) : name;
}

interface DimensionView<Row> {
  rows: Row[];
  loading: boolean;
  /** The figure the chart ranks by. */
  measure: { key: string; value: (row: Row) => number };
  kpis: { key: string; title: string; value: number | null; previous: number | null; format: (value: number) => string }[];
  trend: { days: string[]; series: { name: string; data: number[] }[] };
  columns: CensusColumn<Row>[];
}

function DimensionLayout<Row extends { name: string }>({
  dim,
  view,
  area,
}: {
  dim: CensusTalkDim;
  view: DimensionView<Row>;
  area: 'flow' | 'talk';
}) {
  const { t } = useTranslation();
  const range = useCensusRange();
  const slices = view.rows.map((row) => ({ name: dimName(t, dim, row.name), value: view.measure.value(row) }));
  const measureName = t(view.measure.key);
  const share = SHARE_DIMS.includes(dim);
  const endpoint = area === 'flow' ? 'GET /api/census/flow' : 'GET /api/census/talk';
  return (
    <div className="census-page" data-testid={`census-${area}-${dim}`}>
      <DateRangeBar extra={<ExportButton fetch={() => downloadCsv(endpoint, { dim, from: range.from, to: range.to })} />} />
      <Row gutter={[16, 16]} className="census-kpis">
        {view.kpis.map((kpi) => (
          <Col key={kpi.key} xs={12} md={6}>
            <KpiCard title={t(kpi.title)} value={kpi.value} previous={kpi.previous} format={kpi.format} testId={`kpi-${kpi.key}`} />
          </Col>
        ))}
      </Row>
      <Row gutter={[16, 16]}>
        <Col xs={24} lg={12}>
          <Card size="small" title={t(share ? 'census.shareBy' : 'census.rankBy', { measure: measureName })}>
            <Chart
              testId="census-chart"
              label={t(share ? 'census.shareBy' : 'census.rankBy', { measure: measureName })}
              height={share ? 320 : heightFor(Math.min(slices.length, 10))}
              option={share ? shareOption(topSlices(slices, t('census.others')), measureName) : rankingOption(slices, measureName)}
            />
          </Card>
        </Col>
        <Col xs={24} lg={12}>
          <Card size="small" title={t('census.trend')}>
            <Chart testId="census-trend" label={t('census.trend')} option={trendOption(view.trend.days, view.trend.series)} />
          </Card>
        </Col>
      </Row>
      <Card size="small" title={t(`route.${area}_${dim}`)} className="census-table-card">
        <CensusTable rows={view.rows} columns={view.columns} rowKey={(row) => row.name} loading={view.loading} testId="census-table" />
      </Card>
    </div>
  );
}

/** Visitor traffic by one dimension (`/census/flow/<dim>`). */
export function FlowPage({ dim }: { dim: CensusDim }) {
  const { t } = useTranslation();
  const language = currentLanguage();
  const range = useCensusRange();
  const query = useCensusFlow(dim, range);
  const data = query.data;
  const count = (value: number) => formatCount(value, language);
  const name: CensusColumn<CensusFlowRow> = {
    key: 'name',
    title: `census.dim.${dim}`,
    render: (row) => dimName(t, dim, row.name),
    width: 220,
  };
  const view: DimensionView<CensusFlowRow> = {
    rows: data?.list ?? [],
    loading: query.isFetching,
    measure: { key: 'census.f.visitors', value: (row) => row.visitors },
    kpis: (['visitors', 'visits', 'conversations'] as const).map((key) => ({
      key,
      title: `census.f.${key}`,
      value: data ? data.totals[key] : null,
      previous: data ? data.previous[key] : null,
      format: count,
    })),
    trend: {
      days: data?.trend.map((point) => point.day) ?? [],
      series: (['visitors', 'visits'] as const).map((key) => ({
        name: t(`census.f.${key}`),
        data: data?.trend.map((point) => point[key]) ?? [],
      })),
    },
    columns: [
      name,
      ...(['visitors', 'visits', 'conversations'] as const).map((key) => ({
        key,
        title: `census.f.${key}`,
        value: (row: CensusFlowRow) => row[key],
        render: (row: CensusFlowRow) => count(row[key]),
      })),
    ],
  };
  return <DimensionLayout dim={dim} view={view} area="flow" />;
}

/** Conversations by their visitor's dimension, or by the labels they carry (`/census/talk/<dim>`). */
export function TalkPage({ dim }: { dim: CensusTalkDim }) {
  const { t } = useTranslation();
  const language = currentLanguage();
  const range = useCensusRange();
  const query = useCensusTalk(dim, range);
  const data = query.data;
  const count = (value: number) => formatCount(value, language);
  const view: DimensionView<CensusTalkRow> = {
    rows: data?.list ?? [],
    loading: query.isFetching,
    measure: { key: 'census.f.conversations', value: (row) => row.conversations },
    kpis: [
      ...(['conversations', 'messages', 'rated'] as const).map((key) => ({
        key,
        title: `census.f.${key}`,
        value: data ? data.totals[key] : null,
        previous: data ? data.previous[key] : null,
        format: count,
      })),
      {
        key: 'averageScore',
        title: 'census.f.averageScore',
        value: data ? data.totals.averageScore : null,
        previous: data ? data.previous.averageScore : null,
        format: formatScore,
      },
    ],
    trend: {
      days: data?.trend.map((point) => point.day) ?? [],
      series: [{ name: t('census.f.conversations'), data: data?.trend.map((point) => point.conversations) ?? [] }],
    },
    columns: [
      { key: 'name', title: `census.dim.${dim}`, render: (row) => dimName(t, dim, row.name), width: 220 },
      ...(['conversations', 'messages', 'rated'] as const).map((key) => ({
        key,
        title: `census.f.${key}`,
        value: (row: CensusTalkRow) => row[key],
        render: (row: CensusTalkRow) => count(row[key]),
      })),
      {
        key: 'averageScore',
        title: 'census.f.averageScore',
        value: (row) => row.averageScore,
        render: (row) => (row.averageScore === null ? '-' : formatScore(row.averageScore)),
      },
    ],
  };
  return <DimensionLayout dim={dim} view={view} area="talk" />;
}
