import { DownloadOutlined } from '@ant-design/icons';
import { Button, Table } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import type { ReactNode } from 'react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { saveFile } from '../../lib/api';
import type { Download } from '../../lib/http';
import { CardList, useCardLayout } from '../shared/CardList';

export interface CensusColumn<Row> {
  key: string;
  /** i18n key of the heading. */
  title: string;
  /** What the column sorts by; a column without one does not sort. */
  value?: (row: Row) => number | string | null;
  render?: (row: Row) => ReactNode;
  align?: 'left' | 'right';
  width?: number;
}

/** Nulls (nothing to measure) sort below every number, whichever way the column is sorted. */
function compare(a: number | string | null, b: number | string | null): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b));
}

function cell<Row>(column: CensusColumn<Row>, row: Row): ReactNode {
  return column.render ? column.render(row) : String(column.value?.(row) ?? '-');
}

/** The rows of a statistics page, sortable by every figure; the server's order (largest first) until one is chosen. */
export function CensusTable<Row extends object>({
  rows,
  columns,
  rowKey,
  loading,
  testId,
}: {
  rows: Row[];
  columns: CensusColumn<Row>[];
  rowKey: (row: Row) => string;
  loading: boolean;
  testId?: string;
}) {
  const { t } = useTranslation();
  const cards = useCardLayout();
  const antColumns: ColumnsType<Row> = columns.map((column) => {
    const read = column.value;
    return {
      key: column.key,
      title: t(column.title),
      align: column.align ?? (read ? 'right' : 'left'),
      width: column.width,
      sorter: read ? (a: Row, b: Row) => compare(read(a), read(b)) : undefined,
      sortDirections: ['descend', 'ascend'],
      render: (_: unknown, row: Row) => cell(column, row),
    };
  });
  const pagination = rows.length > 20 ? ({ pageSize: 20, showSizeChanger: false, size: 'small' } as const) : false;
  if (cards)
    return (
      <CardList<Row>
        rows={rows}
        rowKey={rowKey}
        fields={columns.map((column) => ({ key: column.key, label: t(column.title), render: (row) => cell(column, row) }))}
        pagination={pagination}
        loading={loading}
        empty={t('census.empty')}
        testId={testId}
      />
    );
  return (
    <Table<Row>
      className="census-table"
      data-testid={testId}
      size="small"
      rowKey={rowKey}
      columns={antColumns}
      dataSource={rows}
      loading={loading}
      // Between a phone's cards and a wide screen the table scrolls sideways rather than squeezing the figures.
      scroll={{ x: 'max-content' }}
      pagination={pagination}
      locale={{ emptyText: t('census.empty') }}
    />
  );
}

/** Downloads the page's list as CSV, as the server writes it for the same range. */
export function ExportButton({ fetch, testId = 'census-export' }: { fetch: () => Promise<Download>; testId?: string }) {
  const { t } = useTranslation();
  const [busy, setBusy] = useState(false);
  const run = () => {
    setBusy(true);
    fetch()
      .then(saveFile)
      // The client has already shown the error; the button only stops spinning.
      .catch(() => undefined)
      .finally(() => setBusy(false));
  };
  return (
    <Button icon={<DownloadOutlined />} loading={busy} onClick={run} data-testid={testId}>
      {t('census.export')}
    </Button>
  );
}
