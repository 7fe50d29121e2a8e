import {
  BellOutlined,
  BgColorsOutlined,
  BugOutlined,
  CompressOutlined,
  ExpandOutlined,
  LogoutOutlined,
  ReloadOutlined,
  SearchOutlined,
  SkinOutlined,
  TranslationOutlined,
  UserOutlined,
} from '@ant-design/icons';
import { can } from '@parley/protocol';
import { AutoComplete, Avatar, Badge, Button, Dropdown, Empty, List, Modal, Popover, Space, Table, Tabs, Tooltip, Typography } from 'antd';
import { type ReactNode, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { logout } from '../../features/auth/api';
import { useUserInfo } from '../../features/auth/queries';
import { PersonalDrawer } from '../../features/personal/PersonalDrawer';
import { endSession } from '../../lib/request';
import { LANGUAGES, type Language, settings } from '../../lib/settings';
import { routeTree } from '../../routes';
import { useSettings } from '../../stores/settings';
import { useUi } from '../../stores/ui';
import { findChain } from '../routeTree';
import { DesktopControls } from './DesktopControls';
import { bellCount, fetchSuggestions, useLetterUnread, useNotices } from './queries';
import { filterSuggestions, searchTarget } from './search';

const PERSONAL_PATH = '/personal/personal';
const NOBODY = { roles: [], permissions: [] };

function IconButton({ title, icon, onClick, testId }: { title: string; icon: ReactNode; onClick?: () => void; testId: string }) {
  return (
    <Tooltip title={title}>
      <button type="button" className="header-icon" aria-label={title} data-testid={testId} onClick={onClick}>
        {icon}
      </button>
    </Tooltip>
  );
}

export function ErrorLogControl() {
  const { t } = useTranslation();
  const errors = useUi((state) => state.errors);
  const clearErrors = useUi((state) => state.clearErrors);
  const [open, setOpen] = useState(false);
  if (errors.length === 0) return null;
  const engines = [
    { key: 'google', url: 'https://www.google.com/search?q=' },
    { key: 'bing', url: 'https://www.bing.com/search?q=' },
    { key: 'baidu', url: 'https://www.baidu.com/s?wd=' },
  ];
  return (
    <>
      <Badge count={errors.length} size="small" offset={[-6, 6]}>
        <IconButton title={t('header.errorLog')} icon={<BugOutlined />} onClick={() => setOpen(true)} testId="header-error-log" />
      </Badge>
      <Modal
        title={t('errorLog.title')}
        open={open}
        width={920}
        onCancel={() => setOpen(false)}
        footer={[
          <Button key="cancel" onClick={() => setOpen(false)}>
            {t('common.cancel')}
          </Button>,
          <Button
            key="clear"
            danger
            onClick={() => {
              clearErrors();
              setOpen(false);
            }}
          >
            {t('errorLog.clear')}
          </Button>,
        ]}
      >
        <Table
          size="small"
          rowKey={(row) => `${row.time}-${row.message}`}
          dataSource={errors}
          pagination={false}
          scroll={{ y: 420 }}
          columns={[
            { title: t('errorLog.url'), dataIndex: 'url', width: 200, ellipsis: true },
            {
              title: t('errorLog.message'),
              dataIndex: 'message',
              render: (message: string, row) => (
                <Space direction="vertical" size={4}>
                  <Typography.Text type="danger">{message}</Typography.Text>
                  <Typography.Text className="error-stack">{row.stack}</Typography.Text>
                </Space>
              ),
            },
            {
              title: t('errorLog.search'),
              width: 150,
              render: (_, row) => (
                <Space size={4} wrap>
                  {engines.map((engine) => (
                    <Typography.Link
                      key={engine.key}
                      href={`${engine.url}${encodeURIComponent(row.message)}`}
                      target="_blank"
                      rel="noopener noreferrer"
                    >
                      {t(`errorLog.${engine.key}`)}
                    </Typography.Link>
                  ))}
                </Space>
              ),
            },
          ]}
        />
      </Modal>
    </>
  );
}

export function SearchControl() {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const [value, setValue] = useState('');
  const [options, setOptions] = useState<{ value: string; url: string }[]>([]);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  useEffect(() => () => clearTimeout(timer.current), []);

  const onSearch = (typed: string) => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      fetchSuggestions(typed)
        .then(({ list }) => setOptions(filterSuggestions(list, typed)))
        .catch(() => setOptions([]));
    }, settings.searchDelay);
  };

  const choose = (chosen: string) => {
    const found = options.find((item) => item.value === chosen);
    window.open(searchTarget(chosen, found?.url), '_blank', 'noopener,noreferrer');
    setOpen(false);
    setValue('');
  };

  return (
    <>
      <IconButton title={t('header.search')} icon={<SearchOutlined />} onClick={() => setOpen(true)} testId="header-search" />
      <Modal title={t('header.search')} open={open} footer={null} onCancel={() => setOpen(false)} destroyOnHidden>
        <AutoComplete
          autoFocus
          style={{ width: '100%' }}
          value={value}
          options={options.map((item) => ({ value: item.value, label: item.value }))}
          onSearch={onSearch}
          onChange={setValue}
          onSelect={choose}
          placeholder={t('header.searchPlaceholder')}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && value && !options.some((item) => item.value === value)) choose(value);
          }}
        />
      </Modal>
    </>
  );
}

export function NoticeControl() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const unread = useLetterUnread();
  const notices = useNotices();
  const list = notices.data?.list ?? [];
  const total = bellCount(unread, list);
  const content = (
    <div className="notice-panel">
      <Tabs
        size="small"
        items={[
          {
            key: 'notice',
            label: t('notice.notices'),
            children: list.length ? (
              <List
                size="small"
                dataSource={list}
                renderItem={(item) => (
                  <List.Item className="notice-item" onClick={() => item.url.startsWith('#') && navigate(item.url.slice(1))}>
                    <List.Item.Meta avatar={<Avatar icon={<BellOutlined />} />} title={item.title} description={item.notice} />
                  </List.Item>
                )}
              />
            ) : (
              <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('notice.empty')} />
            ),
          },
        ]}
      />
      <div className="notice-footer">
        <Button type="link" onClick={() => navigate('/history/letter')}>
          {unread ? t('notice.lettersUnread', { count: unread }) : t('notice.letters')}
        </Button>
      </div>
    </div>
  );
  return (
    <Popover content={content} trigger="click" placement="bottomRight" arrow={false}>
      <Badge count={total} size="small" offset={[-6, 6]}>
        <IconButton title={t('header.notice')} icon={<BellOutlined />} testId="header-notice" />
      </Badge>
    </Popover>
  );
}

export function FullScreenControl() {
  const { t } = useTranslation();
  const [full, setFull] = useState(Boolean(document.fullscreenElement));
  useEffect(() => {
    const onChange = () => setFull(Boolean(document.fullscreenElement));
    document.addEventListener('fullscreenchange', onChange);
    return () => document.removeEventListener('fullscreenchange', onChange);
  }, []);
  const toggle = () => {
    if (document.fullscreenElement) void document.exitFullscreen();
    else void document.documentElement.requestFullscreen().catch(() => undefined);
  };
  return (
    <IconButton
      title={full ? t('header.exitFullScreen') : t('header.fullScreen')}
      icon={full ? <CompressOutlined /> : <ExpandOutlined />}
      onClick={toggle}
      testId="header-fullscreen"
    />
  );
}

export function LanguageControl() {
  const { t } = useTranslation();
  const language = useSettings((state) => state.language);
  const setLanguage = useSettings((state) => state.setLanguage);
  return (
    <Dropdown
      trigger={['click']}
      menu={{
        selectable: true,
        selectedKeys: [language],
        items: [
          { key: 'zh', label: t('language.zh') },
          { key: 'en', label: t('language.en') },
        ],
        onClick: ({ key }) => setLanguage(key as Language),
      }}
    >
      <span>
        <IconButton title={t('header.language')} icon={<TranslationOutlined />} testId="header-language" />
      </span>
    </Dropdown>
  );
}

export function ThemeControl() {
  const { t } = useTranslation();
  return (
    <Dropdown
      trigger={['click']}
      menu={{
        items: [
          { key: 'theme', label: t('theme.open'), icon: <BgColorsOutlined /> },
          { key: 'random', label: t('theme.random'), icon: <SkinOutlined /> },
          { key: 'clear', label: t('theme.clearCache'), icon: <ReloadOutlined /> },
        ],
        onClick: ({ key }) => {
          if (key === 'theme') window.dispatchEvent(new Event('theme'));
          else if (key === 'random') window.dispatchEvent(new Event('random-theme'));
          else {
            localStorage.clear();
            window.location.reload();
          }
        },
      }}
    >
      <span>
        <IconButton title={t('header.theme')} icon={<SkinOutlined />} testId="header-theme" />
      </span>
    </Dropdown>
  );
}

export function RefreshControl() {
  const { t } = useTranslation();
  return (
    <IconButton title={t('header.refresh')} icon={<ReloadOutlined />} onClick={() => window.location.reload()} testId="header-refresh" />
  );
}

export function AvatarControl() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { data } = useUserInfo();
  const language = useSettings((state) => state.language);
  const setLanguage = useSettings((state) => state.setLanguage);
  const [personalOpen, setPersonalOpen] = useState(false);
  // The personal page is guarded like its route; every other agent edits the same profile in a drawer.
  const personal = findChain(routeTree, PERSONAL_PATH);
  const mayOpenPersonal = personal.length > 0 && personal.every((route) => can(data ?? NOBODY, route.meta?.guard));
  const mustChangePassword = data?.passwordChangeRequired === true;
  // The server revokes the token; the login page then carries the page being left, and a reload
  // drops every trace of the session from memory.
  const signOut = async () => {
    await logout().catch(() => undefined);
    endSession();
    window.location.reload();
  };
  return (
    <>
      <Dropdown
        trigger={['click']}
        menu={{
          // The header's language switch is hidden by default: the avatar menu always offers it.
          selectable: true,
          selectedKeys: [`language:${language}`],
          items: [
            { key: 'personal', label: t('header.personal'), icon: <UserOutlined /> },
            { key: 'theme', label: t('theme.open'), icon: <BgColorsOutlined /> },
            { type: 'divider' },
            {
              type: 'group',
              key: 'language',
              label: t('header.language'),
              children: LANGUAGES.map((option) => ({
                key: `language:${option}`,
                label: t(`language.${option}`),
                icon: <TranslationOutlined />,
              })),
            },
            { type: 'divider' },
            { key: 'logout', label: t('header.logout'), icon: <LogoutOutlined />, danger: true },
          ],
          onClick: ({ key }) => {
            const chosen = LANGUAGES.find((option) => key === `language:${option}`);
            if (chosen) setLanguage(chosen);
            else if (key === 'personal') {
              if (mayOpenPersonal) navigate(PERSONAL_PATH);
              else setPersonalOpen(true);
            } else if (key === 'theme') window.dispatchEvent(new Event('theme'));
            else void signOut();
          },
        }}
      >
        <button type="button" className="header-avatar" data-testid="header-avatar">
          <Avatar size="small" src={data?.avatar || undefined} icon={<UserOutlined />} />
          <span className="header-username">{data?.username ?? ''}</span>
        </button>
      </Dropdown>
      {/* A password shorter than today's rule: agents who cannot open the page change it here first. */}
      <PersonalDrawer
        open={personalOpen || (mustChangePassword && !mayOpenPersonal)}
        locked={mustChangePassword}
        onClose={() => setPersonalOpen(false)}
      />
    </>
  );
}

/** The right side of the header: each control per its theme flag (seed §2). */
export function HeaderControls() {
  const theme = useSettings((state) => state.theme);
  const device = useSettings((state) => state.device);
  return (
    <div className="header-controls">
      <ErrorLogControl />
      {theme.showSearch && <SearchControl />}
      {theme.showNotice && <NoticeControl />}
      {theme.showFullScreen && device === 'desktop' && <FullScreenControl />}
      {theme.showLanguage && <LanguageControl />}
      {theme.showTheme && <ThemeControl />}
      {theme.showRefresh && <RefreshControl />}
      <AvatarControl />
      <DesktopControls />
    </div>
  );
}
