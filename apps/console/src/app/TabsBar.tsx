import {
  CloseOutlined,
  ColumnWidthOutlined,
  DownOutlined,
  ReloadOutlined,
  VerticalLeftOutlined,
  VerticalRightOutlined,
} from '@ant-design/icons';
import { Dropdown, type MenuProps, Tabs } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate } from 'react-router';
import { useSettings } from '../stores/settings';
import { useTabs } from '../stores/tabs';
import { useUi } from '../stores/ui';
import { RouteIcon } from './icons';
import { type AppRoute, leaves } from './routeTree';
import { fallbackPath, type Tab } from './tabs';

/** The tab key of a page: its full path (query included) for routes that open a tab per full path. */
export function tabKey(leaf: AppRoute | undefined, pathname: string, search: string): string {
  return leaf?.meta?.dynamicNewTab ? `${pathname}${search}` : pathname;
}

/** Visited pages as tabs (seed §2/§4), with the right-click menu and close rules. */
function affixTabs(routes: AppRoute[]): Tab[] {
  return leaves(routes)
    .filter((route) => route.meta?.noClosable && !route.meta.tabHidden)
    .map((route) => ({
      path: route.fullPath,
      name: route.name,
      meta: { title: route.meta?.title ?? route.name, icon: route.meta?.icon, noClosable: true },
    }));
}

export function TabsBar({ leaf, routes }: { leaf: AppRoute | undefined; routes: AppRoute[] }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const location = useLocation();
  const store = useTabs();
  const style = useSettings((state) => state.theme.tabsBarStyle);
  const showIcon = useSettings((state) => state.theme.showTabsIcon);
  const reload = useUi((state) => state.reload);
  const active = tabKey(leaf, location.pathname, location.search);

  useEffect(() => {
    store.affix(affixTabs(routes));
  }, [routes, store.affix]);

  useEffect(() => {
    // A redirecting parent (`/` → `/index`, `/workbench` → its page) is passed through, never a tab.
    if (!leaf?.meta || leaf.meta.tabHidden || leaf.redirect) return;
    const { title, icon, noClosable, dynamicNewTab, noKeepAlive } = leaf.meta;
    store.add({ path: active, name: leaf.name, meta: { title, icon, noClosable, dynamicNewTab, noKeepAlive } });
  }, [leaf, active, store.add]);

  /** After a close: stay when the active tab survived, else open the last tab or the root. */
  const after = (apply: () => void) => {
    apply();
    const remaining = useTabs.getState().tabs;
    if (!remaining.some((tab) => tab.path === active)) navigate(fallbackPath(remaining));
  };

  const contextItems = (path: string): MenuProps['items'] =>
    [
      { key: 'refresh', label: t('tabs.refresh'), icon: <ReloadOutlined /> },
      { key: 'others', label: t('tabs.closeOthers'), icon: <ColumnWidthOutlined /> },
      { key: 'left', label: t('tabs.closeLeft'), icon: <VerticalRightOutlined /> },
      { key: 'right', label: t('tabs.closeRight'), icon: <VerticalLeftOutlined /> },
      { key: 'all', label: t('tabs.closeAll'), icon: <CloseOutlined /> },
    ].map((item) => ({ ...item, 'data-testid': `tabs-${item.key}-${path}` }));

  const onContext = (path: string, key: string) => {
    if (key === 'refresh') {
      if (path !== active) navigate(path);
      reload(path);
    } else if (key === 'others') {
      if (path !== active) navigate(path);
      store.closeOthers(path);
    } else if (key === 'left') after(() => store.closeLeft(path));
    else if (key === 'right') after(() => store.closeRight(path));
    else after(() => store.closeAll());
  };

  return (
    <div className={`tabs-bar tabs-bar-${style}`} data-testid="tabs-bar">
      <Tabs
        hideAdd
        type="editable-card"
        size="small"
        activeKey={active}
        onTabClick={(key) => (key === active ? reload(key) : navigate(key))}
        onEdit={(key, action) => {
          if (action === 'remove' && typeof key === 'string') after(() => store.close(key));
        }}
        items={store.tabs.map((tab) => ({
          key: tab.path,
          closable: !tab.meta.noClosable,
          label: (
            <Dropdown trigger={['contextMenu']} menu={{ items: contextItems(tab.path), onClick: ({ key }) => onContext(tab.path, key) }}>
              <span className="tab-label" data-testid="tab" data-path={tab.path}>
                {showIcon && tab.meta.icon ? <RouteIcon name={tab.meta.icon} /> : null}
                {t(`route.${tab.meta.title}`, { defaultValue: tab.meta.title })}
              </span>
            </Dropdown>
          ),
        }))}
      />
      <Dropdown trigger={['click']} menu={{ items: contextItems(active), onClick: ({ key }) => onContext(active, key) }}>
        <button type="button" className="tabs-more" aria-label={t('tabs.more')} data-testid="tabs-more">
          <DownOutlined />
        </button>
      </Dropdown>
    </div>
  );
}
