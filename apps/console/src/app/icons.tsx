import {
  ApiOutlined,
  AppstoreOutlined,
  BarChartOutlined,
  BellOutlined,
  BgColorsOutlined,
  ColumnWidthOutlined,
  CommentOutlined,
  ControlOutlined,
  CustomerServiceOutlined,
  DesktopOutlined,
  EnvironmentOutlined,
  ExperimentOutlined,
  FileSearchOutlined,
  HistoryOutlined,
  HomeOutlined,
  IdcardOutlined,
  LayoutOutlined,
  LinkOutlined,
  MailOutlined,
  MessageOutlined,
  MobileOutlined,
  NotificationOutlined,
  PushpinOutlined,
  RobotOutlined,
  SafetyOutlined,
  SettingOutlined,
  SmileOutlined,
  TableOutlined,
  TeamOutlined,
  ThunderboltOutlined,
  ToolOutlined,
  UserOutlined,
  UserSwitchOutlined,
  WechatOutlined,
} from '@ant-design/icons';
import type { ComponentType } from 'react';

/** Route icons by the names used in the route tree; an unknown name draws nothing. */
const ICONS: Record<string, ComponentType> = {
  ApiOutlined,
  ExperimentOutlined,
  TableOutlined,
  ColumnWidthOutlined,

  CommentOutlined,
  PushpinOutlined,
  EnvironmentOutlined,
  BgColorsOutlined,
  LayoutOutlined,
  ThunderboltOutlined,
  ToolOutlined,
  NotificationOutlined,
  DesktopOutlined,
  MobileOutlined,

  AppstoreOutlined,
  BarChartOutlined,
  BellOutlined,
  ControlOutlined,
  CustomerServiceOutlined,
  FileSearchOutlined,
  HistoryOutlined,
  HomeOutlined,
  IdcardOutlined,
  LinkOutlined,
  MailOutlined,
  MessageOutlined,
  RobotOutlined,
  SafetyOutlined,
  SettingOutlined,
  SmileOutlined,
  TeamOutlined,
  UserOutlined,
  UserSwitchOutlined,
  WechatOutlined,
};

export function RouteIcon({ name }: { name: string | undefined }) {
  const Icon = name ? ICONS[name] : undefined;
  return Icon ? <Icon /> : null;
}

export const ICON_NAMES = Object.keys(ICONS).sort();
