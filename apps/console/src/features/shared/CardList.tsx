import { Checkbox, Empty, Pagination, type PaginationProps, Spin } from 'antd';
import { type Key, type ReactNode, useId, useState, useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import { CARD_QUERY, pageOf, pageSelection, toggleRows } from './cards';
import './cardList.css';

/** One line of a card: a table column's title and the same cell it draws. */
export interface CardField<Row> {
  key: string;
  label: ReactNode;
  render: (row: Row) => ReactNode;
}

export interface CardSelection<Row> {
  selected: Row[];
  onChange: (rows: Row[]) => void;
  disabled?: (row: Row) => boolean;
}

function subscribe(onChange: () => void): () => void {
  const query = window.matchMedia(CARD_QUERY);
  query.addEventListener('change', onChange);
  return () => query.removeEventListener('change', onChange);
}

/** True while the window is narrower than a table can be read in (see CARD_BELOW). */
export function useCardLayout(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => window.matchMedia(CARD_QUERY).matches,
    () => false,
  );
}

/**
 * A table's rows as cards, for phones: one card per row, each column a term and its value, the row's
 * actions at the card's foot. The pager and the empty state are the table's; a `pagination` without
 * `total` pages the rows here, as antd's Table does.
 */
export function CardList<Row>(props: {
  rows: Row[];
  rowKey: (row: Row) => Key;
  fields: CardField<Row>[];
  actions?: (row: Row) => ReactNode;
  selection?: CardSelection<Row>;
  pagination: PaginationProps | false;
  loading?: boolean;
  empty?: ReactNode;
  testId?: string;
}) {
  const { t } = useTranslation();
  const id = useId();
  const { rows, rowKey, fields, selection, pagination } = props;
  const [localPage, setLocalPage] = useState(1);
  const local = pagination !== false && pagination.total === undefined;
  const pageSize = (pagination ? pagination.pageSize : undefined) ?? 10;
  const visible = local ? pageOf(rows, localPage, pageSize) : rows;
  const selectable = selection ? visible.filter((row) => !selection.disabled?.(row)) : [];
  const selectedKeys = selection?.selected.map(rowKey) ?? [];
  const all = pageSelection(selectedKeys, selectable.map(rowKey));

  return (
    <Spin spinning={props.loading ?? false}>
      {selection && selectable.length > 0 && (
        <div className="kit-cards-bar">
          <Checkbox
            checked={all.checked}
            indeterminate={all.indeterminate}
            onChange={(event) => selection.onChange(toggleRows(selection.selected, selectable, rowKey, event.target.checked))}
          >
            {t('kit.selectPage')}
          </Checkbox>
        </div>
      )}
      {visible.length === 0 ? (
        <Empty className="kit-cards-empty" image={Empty.PRESENTED_IMAGE_SIMPLE} description={props.empty} />
      ) : (
        // role="list": a list styled without bullets keeps its semantics in every screen reader.
        // biome-ignore lint/a11y/noRedundantRoles: see above
        <ul className="kit-cards" role="list" data-testid={props.testId}>
          {visible.map((row, index) => {
            const key = rowKey(row);
            const first = `${id}-${index}`;
            const actions = props.actions?.(row);
            return (
              <li key={key} className="kit-card" data-testid="kit-card">
                {selection && (
                  <Checkbox
                    className="kit-card-select"
                    checked={selectedKeys.includes(key)}
                    disabled={selection.disabled?.(row)}
                    aria-describedby={first}
                    onChange={(event) => selection.onChange(toggleRows(selection.selected, [row], rowKey, event.target.checked))}
                  >
                    {t('kit.selectRow')}
                  </Checkbox>
                )}
                <dl className="kit-card-fields">
                  {fields.map((field, column) => (
                    <div key={field.key} className="kit-card-line">
                      <dt>{field.label}</dt>
                      <dd id={column === 0 ? first : undefined}>{field.render(row)}</dd>
                    </div>
                  ))}
                </dl>
                {actions && <div className="kit-card-actions">{actions}</div>}
              </li>
            );
          })}
        </ul>
      )}
      {pagination && (local ? rows.length : (pagination.total ?? 0)) > 0 && (
        <Pagination
          className="kit-cards-pager"
          {...pagination}
          {...(local && {
            current: localPage,
            total: rows.length,
            onChange: (page: number) => setLocalPage(page),
          })}
        />
      )}
    </Spin>
  );
}
