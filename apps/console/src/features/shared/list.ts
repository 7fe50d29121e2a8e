import type { ListData } from '@parley/protocol';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { TablePaginationConfig } from 'antd';
import { useState } from 'react';
import { toastSuccess } from '../../lib/feedback';
import { i18n } from '../../lib/i18n';
import { http } from '../../lib/request';
import { settings } from '../../lib/settings';

export type Filters = Record<string, string | number | boolean | undefined>;

/** A CONTRACT §2 list: paging and filters in state, the page itself in TanStack Query. */
export function useListPage<T>(area: string, initial: Filters = {}) {
  const [pageNo, setPageNo] = useState(1);
  const [pageSize, setPageSize] = useState<number>(settings.pageSize);
  const [filters, setFilters] = useState<Filters>(initial);
  const query = useQuery({
    queryKey: [area, 'list', { pageNo, pageSize, ...filters }],
    queryFn: () => http.get<ListData<T>>(`/api/${area}/getList`, { params: { pageNo, pageSize, ...filters } }),
    placeholderData: keepPreviousData,
  });
  /** The table's pager: this page, the size changer and the total in the current language. */
  const pagination: TablePaginationConfig = {
    current: pageNo,
    pageSize,
    total: query.data?.total ?? 0,
    showSizeChanger: true,
    showTotal: (count) => i18n.t('common.total', { total: count }),
    onChange: (page, size) => {
      setPageNo(size === pageSize ? page : 1);
      setPageSize(size);
    },
  };
  return {
    query,
    list: query.data?.list ?? [],
    pagination,
    search(next: Filters) {
      setFilters(next);
      setPageNo(1);
    },
  };
}

/** Create/update and delete for one area; both refresh its lists when done. */
export function useListMutations<Body>(area: string) {
  const client = useQueryClient();
  const refresh = () => client.invalidateQueries({ queryKey: [area] });
  const save = useMutation({
    mutationFn: (body: Body) => http.post<{ id: number }>(`/api/${area}/doEdit`, body),
    onSuccess: () => {
      toastSuccess(i18n.t('common.saved'));
      return refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (ids: number[]) => http.post<unknown>(`/api/${area}/doDelete`, { ids }),
    onSuccess: () => {
      toastSuccess(i18n.t('common.deleted'));
      return refresh();
    },
  });
  return { save, remove };
}

export function formatTime(value: string, language: string): string {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return value;
  return date.toLocaleString(language === 'en' ? 'en-GB' : 'zh-CN', { hour12: false });
}
