import type { Endpoint, InputOf, ListData, ResponseOf } from '@parley/protocol';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { TablePaginationConfig } from 'antd';
import { useState } from 'react';
import { call } from '../../lib/api';
import { toastSuccess } from '../../lib/feedback';
import { formatRoughCount } from '../../lib/format';
import { i18n } from '../../lib/i18n';
import { settings } from '../../lib/settings';

export type Filters = Record<string, string | number | boolean | undefined>;

type PagedKey = {
  [K in Endpoint]: K extends `GET /api/${string}/getList` ? (ResponseOf<K> extends ListData<unknown> ? K : never) : never;
}[Endpoint];
/** An area with a paged list: `/api/<area>/getList`, `/doEdit`, `/doDelete` (CONTRACT §2). */
export type ListArea = PagedKey extends `GET /api/${infer A}/getList` ? A : never;
type ListKey<A extends ListArea> = Extract<PagedKey, `GET /api/${A}/getList`>;
export type RowOf<A extends ListArea> = ResponseOf<ListKey<A>> extends ListData<infer T> ? T : never;
type EditKey<A extends ListArea> = Extract<Endpoint, `POST /api/${A}/doEdit`>;
export type EditBody<A extends ListArea> = InputOf<EditKey<A>>;

/**
 * The pager's total: a keyword found in very many is counted up to a bound ("more than" it); a list of
 * millions on PostgreSQL is estimated ("about" it, to three figures in the language's own short form).
 */
export function totalText(count: number, data: Pick<ListData<unknown>, 'more' | 'estimated'> | undefined): string {
  if (data?.estimated) {
    return i18n.t('common.totalAbout', { total: formatRoughCount(count) });
  }
  return i18n.t(data?.more ? 'common.totalMore' : 'common.total', { total: count });
}

/** A CONTRACT §2 list: paging and filters in state, the page itself in TanStack Query. */
export function useListPage<A extends ListArea>(area: A, initial: Filters = {}) {
  const [pageNo, setPageNo] = useState(1);
  const [pageSize, setPageSize] = useState<number>(settings.pageSize);
  const [filters, setFilters] = useState<Filters>(initial);
  const query = useQuery({
    queryKey: [area, 'list', { pageNo, pageSize, ...filters }],
    // The filters are the page's own search fields; the server validates them against the row's schema.
    queryFn: () => call(`GET /api/${area}/getList` as PagedKey, { pageNo, pageSize, ...filters } as never) as Promise<ListData<RowOf<A>>>,
    placeholderData: keepPreviousData,
  });
  /** The table's pager: this page, the size changer and the total in the current language. */
  const pagination: TablePaginationConfig = {
    current: pageNo,
    pageSize,
    total: query.data?.total ?? 0,
    showSizeChanger: true,
    showTotal: (count) => totalText(count, query.data),
    onChange: (page, size) => {
      setPageNo(size === pageSize ? page : 1);
      setPageSize(size);
    },
  };
  return {
    query,
    list: query.data?.list ?? [],
    pagination,
    /** The filters of the list on screen. */
    filters,
    search(next: Filters) {
      setFilters(next);
      setPageNo(1);
    },
  };
}

/** The key of an area's list queries, to refresh them from elsewhere (a socket frame, another page). */
export function listQueryKey(area: ListArea): readonly [ListArea, 'list'] {
  return [area, 'list'];
}

/** Create/update and delete for one area; both refresh its lists when done. */
export function useListMutations<A extends ListArea>(area: A) {
  const client = useQueryClient();
  const refresh = () => client.invalidateQueries({ queryKey: [area] });
  const save = useMutation({
    mutationFn: (body: EditBody<A>) => call(`POST /api/${area}/doEdit` as EditKey<A>, body as never),
    onSuccess: () => {
      toastSuccess(i18n.t('common.saved'));
      return refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (ids: Array<number | string>) =>
      call(`POST /api/${area}/doDelete` as Extract<Endpoint, `POST /api/${A}/doDelete`>, { ids } as never),
    onSuccess: () => {
      toastSuccess(i18n.t('common.deleted'));
      return refresh();
    },
  });
  return { save, remove };
}
