import { Badge, Menu, type MenuProps } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate } from 'react-router';
import { settings } from '../lib/settings';
import { useSettings } from '../stores/settings';
import { useUi } from '../stores/ui';
import { useLetterUnread } from './header/queries';
import { RouteIcon } from './icons';
import type { MenuNode } from './routeTree';

type Item = Required<MenuProps>['items'][number];

function ancestorsOf(nodes: MenuNode[], key: string, trail: string[] = []): string[] | null {
  for (const node of nodes) {
    if (node.key === key) return trail;
    if (node.children) {
      const found = ancestorsOf(node.children, key, [...trail, node.key]);
      if (found) return found;
    }
  }
  return null;
}

export interface SideMenuProps {
  nodes: MenuNode[];
  activeKey: string;
  mode: 'inline' | 'vertical' | 'horizontal';
  collapsed?: boolean;
  theme?: 'dark' | 'light';
  className?: string;
}

/** A menu drawn from menu nodes with seed §2's behaviour (external links, same-path reload, mobile fold). */
export function SideMenu({ nodes, activeKey, mode, collapsed = false, theme = 'dark', className }: SideMenuProps) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const location = useLocation();
  const device = useSettings((state) => state.device);
  const foldSidebar = useSettings((state) => state.foldSidebar);
  const reload = useUi((state) => state.reload);
  const unread = useLetterUnread();

  const items = useMemo(() => {
    const toItems = (list: MenuNode[]): Item[] =>
      list.map((node) => {
        const title = t(`route.${node.title}`, { defaultValue: node.title });
        const count = node.badge === 'letter' ? unread : 0;
        const label = count ? (
          <span key={node.key} className="menu-label-badge">
            {title}
            <Badge count={count} size="small" />
          </span>
        ) : (
          title
        );
        const icon = node.icon ? <RouteIcon key={node.key} name={node.icon} /> : undefined;
        if (node.children) {
          return {
            key: node.key,
            label,
            icon,
            children: toItems(node.children),
            popupClassName: node.children.length > settings.menuScrollAbove ? 'menu-popup-scroll' : undefined,
          };
        }
        return { key: node.key, label, icon, title };
      });
    return toItems(nodes);
  }, [nodes, t, unread]);

  const firstSubmenu = nodes.find((node) => node.children)?.key;
  const [openKeys, setOpenKeys] = useState<string[]>(() => [
    ...(ancestorsOf(nodes, activeKey) ?? []),
    ...(settings.openFirstMenu && firstSubmenu ? [firstSubmenu] : []),
  ]);

  useEffect(() => {
    const ancestors = ancestorsOf(nodes, activeKey) ?? [];
    setOpenKeys((keys) => Array.from(new Set([...keys, ...ancestors])));
  }, [nodes, activeKey]);

  const onClick: MenuProps['onClick'] = ({ key }) => {
    if (/^(https?:|mailto:|tel:|\/\/)/.test(key)) {
      window.open(key, '_blank', 'noopener,noreferrer');
      return;
    }
    if (key === location.pathname) reload(key);
    else navigate(key);
    if (device === 'mobile') foldSidebar();
  };

  const inlineProps = mode === 'inline' ? { openKeys: collapsed ? undefined : openKeys, onOpenChange: setOpenKeys } : {};

  return (
    <Menu
      className={className}
      mode={mode}
      theme={theme}
      items={items}
      selectedKeys={[activeKey]}
      inlineCollapsed={mode === 'inline' ? collapsed : undefined}
      onClick={onClick}
      {...inlineProps}
    />
  );
}
