import {
  CloseOutlined,
  ColumnWidthOutlined,
  DownOutlined,
  ReloadOutlined,
  VerticalLeftOutlined,
  VerticalRightOutlined,
} from '@ant-design/icons';
import { Dropdown, type MenuProps, Tabs } from 'antd';
import { type RefObject, useEffect, useLayoutEffect, useRef } from 'react';
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

/**
 * A tablist may own only tabs, yet antd draws each tab's close button (and the overflow button)
 * inside it. Those stay for the mouse, out of the accessibility tree and the Tab order; the keyboard
 * closes the focused tab with Delete or Backspace (antd's tab keys), which each closable tab announces,
 * and the tab-actions button beside the list holds the other close commands.
 */
function useTablistSemantics(container: RefObject<HTMLDivElement | null>, listLabel: string, closeLabel: (path: string) => string) {
  useLayoutEffect(() => {
    const root = container.current;
    if (!root) return;
    root.querySelector('[role="tablist"]')?.setAttribute('aria-label', listLabel);
    for (const tab of root.querySelectorAll<HTMLElement>('.ant-tabs-tab')) {
      const path = tab.querySelector<HTMLElement>('[data-testid="tab"]')?.dataset.path;
      const remove = tab.querySelector<HTMLElement>('.ant-tabs-tab-remove');
      const role = tab.querySelector<HTMLElement>('[role="tab"]');
      if (remove && path) {
        remove.setAttribute('aria-hidden', 'true');
        remove.tabIndex = -1;
        remove.title = closeLabel(path);
        remove.setAttribute('aria-label', closeLabel(path));
        role?.setAttribute('aria-keyshortcuts', 'Delete');
      } else role?.removeAttribute('aria-keyshortcuts');
    }
    hideOverflowButtons(root);
  });
}

/**
 * antd draws a tab list's overflow button inside the list, which may own only tabs: it stays for the
 * mouse, out of the accessibility tree and the Tab order; the arrow keys reach every tab anyway.
 */
export function hideOverflowButtons(root: ParentNode): void {
  for (const more of root.querySelectorAll<HTMLElement>('.ant-tabs-nav-more')) {
    more.setAttribute('aria-hidden', 'true');
    more.tabIndex = -1;
  }
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
  const bar = useRef<HTMLDivElement>(null);
  const titleOf = (path: string) => {
    const title = store.tabs.find((tab) => tab.path === path)?.meta.title ?? path;
    return t(`route.${title}`, { defaultValue: title });
  };
  useTablistSemantics(bar, t('tabs.list'), (path) => t('tabs.close', { title: titleOf(path) }));

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
    <div ref={bar} className={`tabs-bar tabs-bar-${style}`} data-testid="tabs-bar">
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
                {titleOf(tab.path)}
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
