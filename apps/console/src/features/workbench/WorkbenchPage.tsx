import { BellOutlined, CustomerServiceOutlined, MessageOutlined, SettingOutlined, SoundOutlined, UserAddOutlined } from '@ant-design/icons';
import type { Visitor } from '@parley/protocol';
import { Avatar, Badge, Button, Drawer, Empty, Popover, Segmented, Spin, Switch, Tooltip } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { useSettings } from '../../stores/settings';
import { askNotificationPermission, currentAlerts, type PreferenceName, writePreference } from './alerts';
import { Conversation } from './components/Conversation';
import { VisitorList } from './components/VisitorList';
import { VisitorPanel } from './components/VisitorPanel';
import { catchUp, openConversation, startLive } from './live';
import { useAgentPeers, useIndexInfo, useSetAgentState } from './queries';
import { useMonitoring, useSelectedVisitor, useSwitchUserUrl, visitorsByGroup } from './store';
import './workbench.css';

function AlertSettings() {
  const { t } = useTranslation();
  const [prefs, setPrefs] = useState(() => {
    const alerts = currentAlerts();
    return { sound: alerts.newUserSound !== '' || alerts.newMsgSound !== '', newUser: alerts.notifyNewUser, newMsg: alerts.notifyNewMsg };
  });
  const toggle = async (name: PreferenceName, on: boolean) => {
    // A desktop notification needs the browser's permission first; without it the switch stays off.
    const allowed = name === 'sound' || !on || (await askNotificationPermission());
    writePreference(name, on && allowed);
    setPrefs((held) => ({ ...held, [name]: on && allowed }));
  };
  const rows: { name: PreferenceName; icon: React.ReactNode; label: string; hint: string }[] = [
    { name: 'sound', icon: <SoundOutlined />, label: t('workbench.settings.sound'), hint: t('workbench.settings.soundHint') },
    { name: 'newUser', icon: <UserAddOutlined />, label: t('workbench.settings.newUser'), hint: t('workbench.settings.newUserHint') },
    { name: 'newMsg', icon: <MessageOutlined />, label: t('workbench.settings.newMsg'), hint: t('workbench.settings.newMsgHint') },
  ];
  return (
    <div className="wb-settings" data-testid="wb-settings">
      {rows.map((row) => (
        <div className="wb-setting" key={row.name}>
          <span className="wb-setting-icon">{row.icon}</span>
          <span className="wb-setting-text">
            <span>{row.label}</span>
            <span className="wb-muted wb-small">{row.hint}</span>
          </span>
          <Switch
            size="small"
            checked={prefs[row.name]}
            onChange={(on) => void toggle(row.name, on)}
            aria-label={row.label}
            data-testid={`wb-pref-${row.name}`}
          />
        </div>
      ))}
    </div>
  );
}

/** The workbench (seed §2 /workbench): live visitor list, the conversation, and the visitor's details. */
export default function WorkbenchPage() {
  const { t } = useTranslation();
  const index = useIndexInfo();
  const setAgentState = useSetAgentState();
  const mobile = useSettings((state) => state.device === 'mobile');
  const visitor = useSelectedVisitor();
  const visits = useSwitchUserUrl();
  const connection = useMonitoring((state) => state.connection);
  const visitors = useMonitoring((state) => state.data.visitors);
  const setSwitchUser = useMonitoring((state) => state.setSwitchUser);
  const [panelOpen, setPanelOpen] = useState(false);
  const me = index.data?.info.uuid ?? '';
  const agentList = useAgentPeers();
  const setMonitoredList = useMonitoring((state) => state.setMonitoredList);

  // The seed's monitoredList: every agent and its availability, kept current by 8007 afterwards.
  useEffect(() => {
    if (agentList.data) setMonitoredList(agentList.data.map((agent) => ({ uuid: agent.uuid, state: agent.state })));
  }, [agentList.data, setMonitoredList]);

  useEffect(() => {
    if (index.data) startLive(index.data);
  }, [index.data]);

  const select = (next: Visitor) => {
    setSwitchUser(next, t);
    const held = useMonitoring.getState().data.conversations[next.YQToken];
    if (held?.loaded) void catchUp(next.YQToken);
    void openConversation(next.YQToken);
  };

  // `?visitor=` (a notification's link, CONTRACT §14) opens that conversation once the list holds it.
  const [search] = useSearchParams();
  const asked = search.get('visitor');
  const opened = useRef<string | null>(null);
  const askedVisitor = asked ? visitors[asked] : undefined;
  // biome-ignore lint/correctness/useExhaustiveDependencies: select is remade each render; the visitor decides
  useEffect(() => {
    if (!askedVisitor || opened.current === asked) return;
    opened.current = asked;
    select(askedVisitor);
  }, [asked, askedVisitor]);

  if (index.isPending) {
    return (
      <div className="wb-page wb-loading">
        <Spin />
      </div>
    );
  }
  if (!index.data) {
    return (
      <div className="wb-page wb-loading">
        <Empty description={t('workbench.errors.index')}>
          <Button onClick={() => void index.refetch()}>{t('workbench.retry')}</Button>
        </Empty>
      </div>
    );
  }

  const info = index.data.info;
  const groups = visitorsByGroup(visitors);
  const showList = !mobile || !visitor;
  const showConversation = !mobile || Boolean(visitor);
  const connectionBadge =
    connection === 'open'
      ? { status: 'success' as const, text: t('workbench.connection.open') }
      : connection === 'connecting'
        ? { status: 'processing' as const, text: t('workbench.connection.connecting') }
        : { status: 'error' as const, text: t('workbench.connection.closed') };

  return (
    <div className={`wb-page${mobile ? ' mobile' : ''}`} data-testid="workbench">
      {showList && (
        <aside className="wb-list">
          <div className="wb-me">
            <Avatar size={40} src={info.avatar || undefined} className="wb-avatar service">
              {info.nickname.slice(0, 1).toUpperCase()}
            </Avatar>
            <div className="wb-me-text">
              <div className="wb-me-name">{info.nickname}</div>
              <Badge
                status={connectionBadge.status}
                text={<span className="wb-small wb-muted">{connectionBadge.text}</span>}
                data-testid="wb-connection"
                data-status={connection}
              />
            </div>
            <Popover trigger="click" placement="bottomRight" title={t('workbench.settings.title')} content={<AlertSettings />}>
              <Tooltip title={t('workbench.settings.title')}>
                <Button type="text" icon={<SettingOutlined />} aria-label={t('workbench.settings.title')} data-testid="wb-settings-open" />
              </Tooltip>
            </Popover>
          </div>
          <div className="wb-availability">
            <Segmented
              block
              value={info.state}
              onChange={(value) => setAgentState.mutate(value === '1' ? '1' : '0')}
              disabled={setAgentState.isPending}
              data-testid="wb-availability"
              options={[
                { value: '0', label: <span className="wb-avail online">{t('workbench.availability.online')}</span> },
                { value: '1', label: <span className="wb-avail hidden">{t('workbench.availability.hidden')}</span> },
              ]}
            />
          </div>
          <div className="wb-stats">
            <span>
              <CustomerServiceOutlined /> {t('workbench.stats.current', { count: groups.current.length })}
            </span>
            <span>
              <BellOutlined /> {t('workbench.stats.wait', { count: groups.wait.length })}
            </span>
          </div>
          <VisitorList onSelect={select} />
        </aside>
      )}
      {showConversation &&
        (visitor ? (
          <Conversation
            visitor={visitor}
            me={me}
            mobile={mobile}
            onBack={() => setSwitchUser(null, t)}
            onShowPanel={() => setPanelOpen(true)}
          />
        ) : (
          <section className="wb-conversation wb-none">
            <Empty image={<MessageOutlined className="wb-none-icon" />} description={t('workbench.noneSelected')} />
          </section>
        ))}
      {!mobile && visitor && (
        <aside className="wb-side">
          <VisitorPanel visitor={visitor} visits={visits} />
        </aside>
      )}
      <Drawer
        open={panelOpen && Boolean(visitor)}
        onClose={() => setPanelOpen(false)}
        title={t('workbench.panel.title')}
        size={mobile ? '88%' : 380}
        placement="right"
        className="wb-drawer"
      >
        {visitor && <VisitorPanel visitor={visitor} visits={visits} />}
      </Drawer>
    </div>
  );
}
