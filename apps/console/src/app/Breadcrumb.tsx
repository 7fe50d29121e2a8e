import { Breadcrumb } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { RouteIcon } from './icons';
import { type AppRoute, breadcrumbOf, firstLeafPath } from './routeTree';

export function AppBreadcrumb({ chain }: { chain: AppRoute[] }) {
  const { t } = useTranslation();
  const items = breadcrumbOf(chain);
  return (
    <Breadcrumb
      className="app-breadcrumb"
      items={items.map((route, index) => {
        const title = (
          <>
            <RouteIcon name={route.meta?.icon} /> <span>{t(`route.${route.meta?.title}`, { defaultValue: route.meta?.title })}</span>
          </>
        );
        return { key: route.fullPath, title: index < items.length - 1 ? <Link to={firstLeafPath(route)}>{title}</Link> : title };
      })}
    />
  );
}
