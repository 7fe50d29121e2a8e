import type { LoginRecord } from '@parley/protocol';
import { useTranslation } from 'react-i18next';
import { type Field, ListPage } from '../shared/ListPage';

function Reason({ reason }: { reason: string }) {
  const { t } = useTranslation();
  return reason ? t(`record.reasons.${reason}`, { defaultValue: reason }) : '-';
}

const FIELDS: Field<LoginRecord>[] = [
  { key: 'username', label: 'record.username', in: ['search', 'column'], width: 160 },
  {
    key: 'result',
    label: 'record.resultLabel',
    kind: 'select',
    in: ['search', 'column'],
    width: 100,
    options: [
      { value: 'success', label: 'record.result.success', color: 'green' },
      { value: 'failure', label: 'record.result.failure', color: 'red' },
    ],
  },
  { key: 'reason', label: 'record.reason', in: ['column'], width: 200, render: (row) => <Reason reason={row.reason} /> },
  { key: 'ip', label: 'record.ip', in: ['column'], width: 150 },
  { key: 'userAgent', label: 'record.userAgent', in: ['column'], ellipsis: true },
  { key: 'created_at', label: 'record.time', kind: 'date', in: ['search', 'column'], width: 190, sorter: true },
];

/** The login log (read only): every sign-in attempt, good or bad. */
export default function RecordPage() {
  return <ListPage area="record" fields={FIELDS} manage={false} />;
}
