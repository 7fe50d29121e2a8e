import { DownloadOutlined } from '@ant-design/icons';
import { AUDIT_ACTIONS, type AuditEntry, PERMISSION_LABELS, type Permission } from '@parley/protocol';
import { Button, Space, Tag, Typography } from 'antd';
import { type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { downloadCsv, saveFile } from '../../lib/api';
import { currentLanguage, formatDateTime } from '../../lib/format';
import { useSettings } from '../../stores/settings';
import { useCardLayout } from '../shared/CardList';
import { type Field, ListPage } from '../shared/ListPage';
import type { Filters } from '../shared/list';
import './audit.css';

/** Keys of a detail shown in a sentence of their own; any other key is shown as `key: value`. */
const SHOWN = new Set([
  'id',
  'page',
  'fields',
  'role',
  'renamedFrom',
  'added',
  'removed',
  'permissions',
  'created',
  'updated',
  'rejected',
  'registered',
  'disabled',
  'key',
  'serviceID',
]);

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];

function PermissionTags({ items, color }: { items: string[]; color: string }) {
  const lang = currentLanguage();
  return (
    <>
      {items.map((item) => (
        <Tag key={item} color={color}>
          {PERMISSION_LABELS[item as Permission]?.[lang] ?? item}
        </Tag>
      ))}
    </>
  );
}

/** What changed, in words: the settings page and its fields, a role's permissions, an import's counts. */
function AuditDetail({ entry, quiet = false }: { entry: AuditEntry; quiet?: boolean }) {
  const { t } = useTranslation();
  const { detail } = entry;
  const lines: ReactNode[] = [];
  const line = (key: string, label: string, children: ReactNode) =>
    lines.push(
      <div key={key} className="audit-detail-line">
        <span className="audit-detail-label">{label}</span>
        {children}
      </div>,
    );
  if (typeof detail.page === 'string') line('page', t('audit.detail.page'), t(`route.${detail.page}`, { defaultValue: detail.page }));
  const fields = strings(detail.fields);
  if (fields.length > 0) {
    line(
      'fields',
      t('audit.detail.fields'),
      fields.map((field) => (
        <Typography.Text key={field} code>
          {field}
        </Typography.Text>
      )),
    );
  }
  if (typeof detail.renamedFrom === 'string') line('renamedFrom', t('audit.detail.renamedFrom'), detail.renamedFrom);
  const role = detail.role as { from?: unknown; to?: unknown } | string | undefined;
  if (typeof role === 'string') line('role', t('audit.detail.role'), role);
  else if (role && typeof role.from === 'string' && typeof role.to === 'string')
    line('role', t('audit.detail.role'), `${role.from} → ${role.to}`);
  if (strings(detail.permissions).length > 0)
    line('permissions', t('audit.detail.permissions'), <PermissionTags items={strings(detail.permissions)} color="blue" />);
  if (strings(detail.added).length > 0)
    line('added', t('audit.detail.added'), <PermissionTags items={strings(detail.added)} color="green" />);
  if (strings(detail.removed).length > 0)
    line('removed', t('audit.detail.removed'), <PermissionTags items={strings(detail.removed)} color="red" />);
  if (typeof detail.created === 'number') {
    line(
      'imported',
      t('audit.detail.imported'),
      t('audit.detail.importCounts', { created: detail.created, updated: detail.updated ?? 0, rejected: detail.rejected ?? 0 }),
    );
  }
  if (typeof detail.key === 'string') line('key', t('audit.detail.key'), <Typography.Text code>{detail.key}</Typography.Text>);
  if (detail.registered === true) lines.push(<Tag key="registered">{t('audit.detail.registered')}</Tag>);
  else if (detail.disabled === true) lines.push(<Tag key="disabled">{t('audit.detail.disabled')}</Tag>);
  for (const [key, value] of Object.entries(detail)) {
    if (!SHOWN.has(key) && value !== null && value !== undefined)
      line(key, `${key}:`, typeof value === 'string' ? value : JSON.stringify(value));
  }
  if (lines.length > 0) return <div className="audit-detail">{lines}</div>;
  return quiet ? null : <span className="muted">-</span>;
}

/** `agent:carol` as "Agent carol": the kind in words, the name as recorded. */
function AuditTarget({ target }: { target: string }) {
  const { t } = useTranslation();
  const colon = target.indexOf(':');
  const kind = colon < 0 ? target : target.slice(0, colon);
  const recorded = colon < 0 ? '' : target.slice(colon + 1);
  // A settings page is named by its title, as the menu names it.
  const name = kind === 'settings' ? t(`route.${recorded}`, { defaultValue: recorded }) : recorded;
  return (
    <Space size={4} wrap>
      <Tag>{t(`audit.targets.${kind}`, { defaultValue: kind })}</Tag>
      {name && <Typography.Text ellipsis={{ tooltip: name }}>{name}</Typography.Text>}
    </Space>
  );
}

/** On a phone one column tells the whole entry: what was done to what, by whom and when, then the detail. */
function AuditSummary({ entry }: { entry: AuditEntry }) {
  const { t } = useTranslation();
  return (
    <div className="audit-summary">
      <Space size={4} wrap>
        <Typography.Text strong>{t(`audit.actions.${entry.action}`, { defaultValue: entry.action })}</Typography.Text>
        <AuditTarget target={entry.target} />
      </Space>
      <Typography.Text type="secondary">
        {entry.actor} · {formatDateTime(entry.createdAt)}
        {entry.ip ? ` · ${entry.ip}` : ''}
      </Typography.Text>
      <AuditDetail entry={entry} quiet />
    </div>
  );
}

function fieldsFor(mobile: boolean): Field<AuditEntry>[] {
  const columns: Field<AuditEntry>[] = mobile
    ? [{ key: 'summary', label: 'audit.entry', in: ['column'], width: 260, render: (row) => <AuditSummary entry={row} /> }]
    : [
        { key: 'target', label: 'audit.target', in: ['column'], width: 190, render: (row) => <AuditTarget target={row.target} /> },
        // No width: the detail takes what the other columns leave.
        { key: 'detail', label: 'audit.detail.title', in: ['column'], render: (row) => <AuditDetail entry={row} /> },
        { key: 'ip', label: 'audit.ip', in: ['column'], width: 130 },
      ];
  const inTable = mobile ? [] : (['column'] as const);
  return [
    { key: 'createdAt', label: 'audit.time', kind: 'date', in: ['search', ...inTable], width: 190 },
    { key: 'actor', label: 'audit.actor', in: ['search', ...inTable], width: 110 },
    {
      key: 'action',
      label: 'audit.action',
      kind: 'select',
      in: ['search', ...inTable],
      width: 140,
      searchWidth: 190,
      options: AUDIT_ACTIONS.map((action) => ({ value: action, label: `audit.actions.${action}` })),
    },
    ...columns,
  ];
}

/** Downloads the log as filtered on screen, every page of it, as CSV. */
function ExportButton({ filters }: { filters: Filters }) {
  const { t } = useTranslation();
  const [busy, setBusy] = useState(false);
  const run = () => {
    setBusy(true);
    downloadCsv('GET /api/audit/getList', filters)
      .then(saveFile)
      .catch(() => undefined)
      .finally(() => setBusy(false));
  };
  return (
    <Button icon={<DownloadOutlined />} loading={busy} onClick={run} data-testid="audit-export">
      {t('audit.export')}
    </Button>
  );
}

/** The audit log (Admin only, read only): who changed what in the back office, newest first. */
export default function AuditPage() {
  const mobile = useSettings((state) => state.device === 'mobile');
  // A phone's cards have a line for each column: the one-column summary is for a narrow table.
  const cards = useCardLayout();
  return (
    <ListPage
      area="audit"
      fields={fieldsFor(mobile && !cards)}
      manage={false}
      testId="audit-page"
      toolbar={(filters) => <ExportButton filters={filters} />}
    />
  );
}
