import { SearchOutlined } from '@ant-design/icons';
import { Alert, Empty, Input, Spin } from 'antd';
import { type KeyboardEvent, useEffect, useId, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useQuickReplies } from '../queries';
import { type QuickReply, searchQuickReplies } from '../quickReplies';

/**
 * The team's quick replies (settings page `quickReply`), searchable by title and content. The search box
 * keeps the focus: arrows move through the replies, Enter picks one, Escape closes the picker.
 */
export function QuickRepliesPicker({ onPick, onClose }: { onPick(reply: QuickReply): void; onClose(): void }) {
  const { t } = useTranslation();
  const replies = useQuickReplies();
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  const listId = useId();
  const list = useRef<HTMLDivElement>(null);
  const groups = useMemo(() => searchQuickReplies(replies.data?.groups ?? [], query), [replies.data, query]);
  const flat = useMemo(() => groups.flatMap((group) => group.items), [groups]);
  const optionId = (index: number) => `${listId}-${index}`;

  useEffect(() => {
    list.current?.querySelector(`[data-index="${active}"]`)?.scrollIntoView({ block: 'nearest' });
  }, [active]);

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      if (flat.length === 0) return;
      const step = event.key === 'ArrowDown' ? 1 : -1;
      setActive((at) => (at + step + flat.length) % flat.length);
    } else if (event.key === 'Enter' && !event.nativeEvent.isComposing) {
      event.preventDefault();
      const reply = flat[active];
      if (reply) onPick(reply);
    } else if (event.key === 'Escape') {
      event.preventDefault();
      onClose();
    }
  };

  let body: React.ReactNode;
  if (replies.isPending) body = <Spin size="small" className="wb-quick-state" />;
  else if (replies.isError) body = <Alert type="error" showIcon title={t('workbench.quick.loadFailed')} />;
  else if (flat.length === 0)
    body = (
      <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={query.trim() ? t('workbench.quick.noMatch') : t('workbench.quick.empty')} />
    );
  else {
    let index = -1;
    body = (
      <div className="wb-quick-list" id={listId} role="listbox" aria-label={t('workbench.quick.title')} ref={list}>
        {groups.map((group, groupIndex) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: group names need not be unique; the order is the page's
          <fieldset className="wb-quick-group" key={groupIndex}>
            {group.name && <legend>{group.name}</legend>}
            {group.items.map((reply) => {
              index += 1;
              const at = index;
              return (
                // The search box keeps the focus (aria-activedescendant); a click picks too.
                <button
                  type="button"
                  tabIndex={-1}
                  key={at}
                  id={optionId(at)}
                  data-index={at}
                  role="option"
                  aria-selected={at === active}
                  className={`wb-quick-item${at === active ? ' active' : ''}`}
                  onMouseEnter={() => setActive(at)}
                  onMouseDown={(event) => event.preventDefault()}
                  onClick={() => onPick(reply)}
                >
                  {reply.title && <span className="wb-quick-title">{reply.title}</span>}
                  <span className="wb-quick-content">{reply.content}</span>
                </button>
              );
            })}
          </fieldset>
        ))}
      </div>
    );
  }

  return (
    <div className="wb-quick" data-testid="wb-quick">
      <div className="wb-quick-head">{t('workbench.quick.title')}</div>
      <Input
        autoFocus
        allowClear
        size="small"
        prefix={<SearchOutlined />}
        value={query}
        onChange={(event) => {
          // A new search starts again at its first reply.
          setQuery(event.target.value);
          setActive(0);
        }}
        onKeyDown={onKeyDown}
        placeholder={t('workbench.quick.search')}
        aria-label={t('workbench.quick.search')}
        role="combobox"
        aria-expanded={flat.length > 0}
        aria-controls={listId}
        aria-activedescendant={flat.length > 0 ? optionId(active) : undefined}
        data-testid="wb-quick-search"
      />
      {body}
    </div>
  );
}
