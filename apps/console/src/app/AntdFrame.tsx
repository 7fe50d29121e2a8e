import { ConfigProvider } from 'antd';
import { Outlet } from 'react-router';
import { useAntdTheme } from './antdConfig';
import { useAntdLocale } from './antdLocale';

/**
 * antd's theme and texts around every page that uses antd. It is a lazy route of its own so that the
 * login page, the first thing every agent loads, renders without antd's run-time styling.
 */
export default function AntdFrame() {
  return (
    <ConfigProvider theme={useAntdTheme()} locale={useAntdLocale()}>
      <Outlet />
    </ConfigProvider>
  );
}
