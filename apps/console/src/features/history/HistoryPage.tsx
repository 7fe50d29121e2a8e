import { DownloadOutlined } from '@ant-design/icons';
import { type Conversation, type InputOf, MAX_EXPORT_DAYS } from '@parley/protocol';
import { useQuery } from '@tanstack/react-query';
import { Button, Rate, Tooltip } from 'antd';
import dayjs from 'dayjs';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call, download, saveFile } from '../../lib/api';
import { toastError } from '../../lib/feedback';
import { LabelTags } from '../label/LabelTag';
import { DetailLink } from '../shared/detail';
import { Found, useSearchedKeyword } from '../shared/Found';
import { type Field, ListPage } from '../shared/ListPage';
import type { Filters } from '../shared/list';
import { conversationLength, exportRange, formatDuration } from './format';
import { CHANNEL_OPTIONS, SCORE_OPTIONS } from './options';

export const HISTORY_DETAIL = '/history/historyDetail';
export const VISITOR_DETAIL = '/user/userDetail';

type Option = { value: string | number; text: string };

/** The visitor's name, opening the conversation; a searched keyword is marked there and taken along. */
function ConversationLink({ row }: { row: Conversation }) {
  const keyword = useSearchedKeyword().trim();
  return (
    <DetailLink path={HISTORY_DETAIL} params={keyword ? { id: row.id, keyword } : { id: row.id }}>
      <Found text={row.nickname} />
    </DetailLink>
  );
}

function fieldsWith(agents: Option[], labels: Option[]): Field<Conversation>[] {
  return [
    { key: 'keyword', label: 'records.history.keyword', in: ['search'], searchWidth: 200 },
    {
      key: 'nickname',
      label: 'records.history.visitor',
      in: ['column'],
      width: 150,
      render: (row) => <ConversationLink row={row} />,
    },
    { key: 'serviceID', label: 'records.history.agent', kind: 'select', in: ['search'], options: agents, searchWidth: 160 },
    { key: 'agentNickname', label: 'records.history.agent', in: ['column'], width: 130 },
    { key: 'labels', label: 'labels.column', in: ['column'], width: 180, render: (row) => <LabelTags labels={row.labels} /> },
    { key: 'channel', label: 'records.channelLabel', kind: 'select', in: ['search'], options: CHANNEL_OPTIONS },
    { key: 'score', label: 'records.history.rating', kind: 'select', in: ['search'], options: SCORE_OPTIONS, searchWidth: 130 },
    { key: 'label', label: 'labels.filter', kind: 'select', in: ['search'], options: labels, searchWidth: 150 },
    { key: 'startedAt', label: 'records.history.started', kind: 'date', in: ['search', 'column'], width: 180, sorter: true },
    {
      key: 'duration',
      label: 'records.history.duration',
      in: ['column'],
      width: 100,
      render: (row) => formatDuration(conversationLength(row)) || '-',
    },
    { key: 'messages', label: 'records.history.messages', in: ['column'], width: 100, sorter: true },
    {
      key: 'firstResponseMs',
      label: 'records.history.firstResponse',
      in: ['column'],
      width: 120,
      render: (row) => formatDuration(row.firstResponseMs) || '-',
    },
    {
      key: 'score',
      label: 'records.history.rating',
      in: ['column'],
      width: 150,
      render: (row) => (row.score === null ? '-' : <Rate disabled value={row.score} style={{ fontSize: 14 }} />),
    },
  ];
}

/**
 * Downloads the conversations of the current filters as CSV (the server streams it). One export covers
 * at most MAX_EXPORT_DAYS days: without picked days it asks for those up to today, and the tooltip says
 * which; for picked days spanning more it says so instead of asking (a tap shows it too, on a phone).
 */
function ExportButton({ filters }: { filters: Filters }) {
  const { t } = useTranslation();
  const [busy, setBusy] = useState(false);
  const picked = { from: filters.from as string | undefined, to: filters.to as string | undefined };
  const range = exportRange(picked, dayjs().format('YYYY-MM-DD'), MAX_EXPORT_DAYS);
  const run = () => {
    if (!range) {
      toastError(t('records.history.exportTooWide', { days: MAX_EXPORT_DAYS }));
      return;
    }
    setBusy(true);
    download('GET /api/history/export', { ...filters, ...range } as InputOf<'GET /api/history/export'>)
      .then(saveFile)
      .catch(() => undefined)
      .finally(() => setBusy(false));
  };
  const hint = range
    ? t('records.history.exportRange', { from: range.from, to: range.to, days: MAX_EXPORT_DAYS })
    : t('records.history.exportTooWide', { days: MAX_EXPORT_DAYS });
  return (
    <Tooltip title={hint}>
      <Button icon={<DownloadOutlined />} loading={busy} onClick={run} data-testid="history-export">
        {t('records.history.export')}
      </Button>
    </Tooltip>
  );
}

/** Past and open conversations: search them by words said, agent, channel, rating and day; export as CSV. A visitor's name opens the conversation. */
export default function HistoryPage() {
  const agents = useQuery({ queryKey: ['history', 'agents'], queryFn: () => call('GET /api/talk/agents', undefined, { silent: true }) });
  const options = (agents.data?.list ?? []).map((agent) => ({ value: agent.uuid, text: agent.nickname }));
  const labels = useQuery({
    queryKey: ['label', 'options'],
    queryFn: () => call('GET /api/label/getList', { pageNo: 1, pageSize: 100 }, { silent: true }).then((data) => data.list),
  });
  const labelOptions = (labels.data ?? []).map((label) => ({ value: label.id, text: label.name }));
  return (
    <ListPage
      area="history"
      fields={fieldsWith(options, labelOptions)}
      manage={false}
      testId="history-page"
      toolbar={(filters) => <ExportButton filters={filters} />}
    />
  );
}
