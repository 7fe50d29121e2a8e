import type { Region } from '@parley/protocol';
import { useQuery } from '@tanstack/react-query';
import { TreeSelect } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { call } from '../../../lib/api';

interface RegionNode {
  title: string;
  value: string;
  children: RegionNode[];
}

function toNodes(regions: Region[]): RegionNode[] {
  return regions.map((region) => ({ title: region.name, value: region.code, children: toNodes(region.children) }));
}

/** The region tree: fetched once a session (it does not change while the server runs), shared by every rule. */
function useRegionTree() {
  const tree = useQuery({
    queryKey: ['area', 'tree'],
    queryFn: () => call('GET /api/area/getList'),
    staleTime: Number.POSITIVE_INFINITY,
  });
  const nodes = useMemo(() => toNodes(tree.data?.list ?? []), [tree.data]);
  return { loading: tree.isLoading, nodes };
}

/**
 * A region rule's codes picked from the region tree by name. Choosing a province (or a city) takes it
 * whole: a rule naming it covers everything under it. The list draws only the rows in view, so the
 * tree of some 3,000 places opens at once; search matches names.
 */
export function RegionPicker(props: { id?: string; value?: string[]; onChange?: (value: string[]) => void }) {
  const { t } = useTranslation();
  const tree = useRegionTree();
  return (
    <TreeSelect
      id={props.id}
      value={props.value ?? []}
      onChange={(value: string[]) => props.onChange?.(value)}
      treeData={tree.nodes}
      loading={tree.loading}
      multiple
      allowClear
      showSearch={{ treeNodeFilterProp: 'title' }}
      placeholder={t('settings.hint.regionPick')}
      maxTagCount="responsive"
      listHeight={320}
      popupMatchSelectWidth={false}
      styles={{ popup: { root: { maxWidth: 'calc(100vw - 32px)', minWidth: 280 } } }}
      style={{ width: '100%' }}
      data-testid="region-picker"
    />
  );
}
