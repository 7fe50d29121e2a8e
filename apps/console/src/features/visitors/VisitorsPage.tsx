import type { Channel, VisitorRecord } from '@parley/protocol';
import { Tag } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'react-router';
import { formatDateTime } from '../../lib/format';
import { VISITOR_DETAIL } from '../history/HistoryPage';
import { DetailLink } from '../shared/detail';
import { Found } from '../shared/Found';
import { type Field, ListPage } from '../shared/ListPage';

/** Each visitors page lists one channel: the route says which (seed §2). */
function channelOf(pathname: string): Channel {
  if (pathname.endsWith('/officialAccount')) return 'officialAccount';
  if (pathname.endsWith('/miniProgram')) return 'miniProgram';
  return 'web';
}

function device(row: VisitorRecord): string {
  return [row.platform, row.browser].filter(Boolean).join(' · ') || row.device;
}

const FIELDS: Field<VisitorRecord>[] = [
  { key: 'keyword', label: 'records.visitor.keyword', in: ['search'], searchWidth: 220 },
  {
    key: 'nickname',
    label: 'records.visitor.nickname',
    in: ['column'],
    width: 150,
    fixed: 'left',
    render: (row) => (
      <span>
        <DetailLink path={VISITOR_DETAIL} params={{ YQToken: row.YQToken }}>
          <Found text={row.nickname} />
        </DetailLink>
        {row.online && (
          <Tag color="green" className="records-online">
            <OnlineLabel />
          </Tag>
        )}
      </span>
    ),
  },
  { key: 'region', label: 'records.visitor.region', in: ['column'], width: 100 },
  { key: 'device', label: 'records.visitor.device', in: ['column'], width: 120, render: (row) => device(row) || '-' },
  { key: 'source', label: 'records.visitor.source', in: ['column'], width: 140, ellipsis: true },
  { key: 'visits', label: 'records.visitor.visits', in: ['column'], width: 100, sorter: true },
  { key: 'conversations', label: 'records.visitor.conversations', in: ['column'], width: 160, sorter: true },
  { key: 'created_at', label: 'records.visitor.firstSeen', kind: 'date', in: ['search', 'column'], width: 170, sorter: true },
  { key: 'lastSeen', label: 'records.visitor.lastSeen', kind: 'date', in: ['column'], width: 170, sorter: true },
];

/** What is left of the 48-hour window to reply to a WeChat user, as of when the page was drawn. */
function WindowLeft({ endsAt }: { endsAt: string | null | undefined }) {
  const { t } = useTranslation();
  const left = endsAt ? Date.parse(endsAt) - Date.now() : 0;
  if (!(left > 0)) return <Tag>{t('records.visitor.windowClosed')}</Tag>;
  const hours = Math.floor(left / 3600_000);
  const minutes = Math.floor((left % 3600_000) / 60_000);
  return <Tag color={hours < 2 ? 'orange' : 'blue'}>{t('records.visitor.windowHours', { hours, minutes })}</Tag>;
}

function Subscribed({ value }: { value: boolean | null | undefined }) {
  const { t } = useTranslation();
  if (value === null || value === undefined) return '-';
  return value ? <Tag color="green">{t('records.visitor.subscribedYes')}</Tag> : <Tag>{t('records.visitor.subscribedNo')}</Tag>;
}

/** The channel fields of WeChat users (§11): a mini program has no subscription. */
function wechatFields(channel: Channel): Field<VisitorRecord>[] {
  return [
    ...(channel === 'officialAccount'
      ? [
          {
            key: 'subscribed',
            label: 'records.visitor.subscribed',
            in: ['column'],
            width: 110,
            render: (row) => <Subscribed value={row.wechat?.subscribed} />,
          } satisfies Field<VisitorRecord>,
        ]
      : []),
    {
      key: 'lastInteraction',
      label: 'records.visitor.lastInteraction',
      in: ['column'],
      width: 170,
      render: (row) => (row.wechat?.lastInteractionAt ? formatDateTime(row.wechat.lastInteractionAt) : '-'),
    },
    {
      key: 'windowLeft',
      label: 'records.visitor.windowLeft',
      in: ['column'],
      width: 150,
      render: (row) => <WindowLeft endsAt={row.wechat?.windowEndsAt} />,
    },
  ];
}

function OnlineLabel() {
  const { t } = useTranslation();
  return t('records.visitor.online');
}

/** The visitor archive of one channel: search by what agents know of them and by the day first seen; a name opens the visitor. */
export default function VisitorsPage() {
  const { pathname } = useLocation();
  const channel = channelOf(pathname);
  const fields = useMemo(
    () => (channel === 'web' ? FIELDS : [...FIELDS.slice(0, 2), ...wechatFields(channel), ...FIELDS.slice(2)]),
    [channel],
  );
  return (
    <ListPage key={channel} area="user" fields={fields} manage={false} initialFilters={{ channel }} testId={`visitors-${channel}-page`} />
  );
}
