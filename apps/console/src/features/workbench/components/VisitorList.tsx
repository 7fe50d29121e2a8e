import { type Message, tipText, type Visitor } from '@parley/protocol';
import { Avatar, Badge, Collapse, Empty, Input } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatDate, formatTime, sameSiteDay } from '../../../lib/format';
import { GROUPS, type GroupKey, listGroupOf, sourceTitle } from '../model';
import { useMonitoring, visitorsByGroup } from '../store';
import { VisitorLabels } from './ConversationLabels';

const GROUP_LABEL: Record<GroupKey, string> = {
  current: 'workbench.group.current',
  left: 'workbench.group.left',
  wait: 'workbench.group.wait',
  robot: 'workbench.group.robot',
  ended: 'workbench.group.ended',
};

export function usePreviewText(): (message: Message | null) => string {
  const { t, i18n } = useTranslation();
  const lang = i18n.language === 'en' ? 'en' : 'zh';
  return (message) => {
    if (!message) return t('workbench.preview.none');
    if (message.withdrawn) return t('workbench.preview.withdrawn');
    if (message.role === 'tip') return tipText(message.msg, message.nickname, lang);
    if (message.type === 'image') return t('workbench.preview.image');
    if (message.type === 'file') return t('workbench.preview.file');
    return message.msg;
  };
}

/** The last activity's clock when it was today where the site is, else its day. */
export function shortTime(iso: string): string {
  return sameSiteDay(iso, new Date()) ? formatTime(iso) : formatDate(iso);
}

function VisitorItem({ visitor, active, onSelect }: { visitor: Visitor; active: boolean; onSelect(visitor: Visitor): void }) {
  const { t } = useTranslation();
  const preview = usePreviewText();
  const last = visitor.lastMessage;
  const me = useMonitoring((state) => state.data.me);
  const typing = useMonitoring((state) => state.data.typing[visitor.YQToken] ?? '');
  // Whose words the preview shows when they are not the visitor's: ours, or another agent's by name.
  const prefix = last?.role === 'service' ? (last.serviceID === me ? t('workbench.preview.you') : `${last.nickname}:`) : '';
  return (
    <button
      type="button"
      className={`wb-visitor${active ? ' active' : ''}`}
      onClick={() => onSelect(visitor)}
      data-testid="wb-visitor"
      data-token={visitor.YQToken}
      data-state={visitor.state}
    >
      <Badge
        dot
        status={visitor.online ? 'success' : 'default'}
        offset={[-4, 30]}
        className="wb-online"
        title={t(visitor.online ? 'workbench.visitor.online' : 'workbench.visitor.offline')}
      >
        <Avatar size={40} className={`wb-avatar visitor ${visitor.online ? '' : 'away'}`}>
          {visitor.nickname.slice(0, 1).toUpperCase()}
        </Avatar>
      </Badge>
      <span className="wb-visitor-main">
        <span className="wb-visitor-top">
          <span className="wb-visitor-name">{visitor.nickname}</span>
          <span className="wb-visitor-time">{shortTime(last?.time ?? visitor.created_at)}</span>
        </span>
        {typing ? (
          <span className="wb-visitor-preview typing">
            <span className="wb-you">{t('workbench.message.typing')}</span>
            {typing}
          </span>
        ) : (
          <span className="wb-visitor-preview">
            {prefix && <span className="wb-you">{prefix}</span>}
            {preview(last)}
          </span>
        )}
        {listGroupOf(visitor) === 'left' && (
          <span className="wb-visitor-left" data-testid="wb-visitor-left">
            {visitor.leftAt ? t('workbench.visitor.leftAt', { time: shortTime(visitor.leftAt) }) : t('workbench.group.left')}
          </span>
        )}
        <span className="wb-visitor-bottom">
          <span className="wb-visitor-source">{sourceTitle(visitor, t)}</span>
          <span className="wb-counts" title={t('workbench.visitor.counts', { umsg: visitor.umsg, smsg: visitor.smsg })}>
            {visitor.umsg}/{visitor.smsg}
          </span>
          {visitor.unreadNumber > 0 && <Badge count={visitor.unreadNumber} size="small" className="wb-unread" data-testid="wb-unread" />}
        </span>
        <VisitorLabels token={visitor.YQToken} />
      </span>
    </button>
  );
}

export function VisitorList({ onSelect }: { onSelect(visitor: Visitor): void }) {
  const { t } = useTranslation();
  const visitors = useMonitoring((state) => state.data.visitors);
  const selected = useMonitoring((state) => state.data.selected);
  const activeNames = useMonitoring((state) => state.activeNames);
  const setActiveNames = useMonitoring((state) => state.setActiveNames);
  const [filter, setFilter] = useState('');
  const groups = useMemo(() => {
    const needle = filter.trim().toLowerCase();
    const chosen = needle
      ? Object.fromEntries(
          Object.entries(visitors).filter(
            ([, visitor]) =>
              visitor.nickname.toLowerCase().includes(needle) ||
              visitor.region.toLowerCase().includes(needle) ||
              (visitor.lastMessage?.msg ?? '').toLowerCase().includes(needle),
          ),
        )
      : visitors;
    return visitorsByGroup(chosen);
  }, [visitors, filter]);
  const total = Object.keys(visitors).length;

  return (
    <div className="wb-list-body">
      <div className="wb-search">
        <Input.Search
          allowClear
          placeholder={t('workbench.list.search')}
          value={filter}
          onChange={(event) => setFilter(event.target.value)}
        />
      </div>
      {total === 0 ? (
        <Empty className="wb-list-empty" image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('workbench.list.empty')} />
      ) : (
        <Collapse
          ghost
          className="wb-groups"
          activeKey={activeNames}
          onChange={(keys) => setActiveNames(Array.isArray(keys) ? keys.map(String) : [String(keys)])}
          items={GROUPS.map((key) => ({
            key,
            label: (
              <span className="wb-group-label" data-testid={`wb-group-${key}`}>
                {t(GROUP_LABEL[key])}
                <span className="wb-group-count">{groups[key].length}</span>
              </span>
            ),
            children:
              groups[key].length === 0 ? (
                <div className="wb-group-empty">{t('workbench.list.groupEmpty')}</div>
              ) : (
                groups[key].map((visitor) => (
                  <VisitorItem key={visitor.YQToken} visitor={visitor} active={visitor.YQToken === selected} onSelect={onSelect} />
                ))
              ),
          }))}
        />
      )}
    </div>
  );
}
