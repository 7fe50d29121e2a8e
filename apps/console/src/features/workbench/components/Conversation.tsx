import { ArrowLeftOutlined, CheckOutlined, EyeOutlined, InfoCircleOutlined, PoweroffOutlined, SwapOutlined } from '@ant-design/icons';
import { type AgentPeer, type MessageType, TRANSFER_TO_QUEUE, type Visitor } from '@parley/protocol';
import { Avatar, Badge, Button, Modal, Popconfirm, Select, Space, Tag, Tooltip } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { toastSuccess } from '../../../lib/feedback';
import { workbenchApi } from '../api';
import { act, loadOlder, openConversation, sendMessage } from '../live';
import { type ChatMessage, sourceTitle } from '../model';
import { addNote, useNotes } from '../notes';
import { useAgentPeers, useIsSupervisor } from '../queries';
import { useMonitoring, useSwitchUserMessage } from '../store';
import { Composer } from './Composer';
import { ConversationLabels } from './ConversationLabels';
import { DeliveryBanner, WeChatWindow } from './Delivery';
import { MessageList } from './MessageList';
import { ComposerMode, NoteComposer } from './Notes';

const STATE_COLOR: Record<string, string> = { current: 'green', monitor: 'purple', wait: 'orange', robot: 'blue', end: 'default' };
type Availability = 'online' | 'hidden' | 'offline';
const AVAILABILITY_ORDER: Record<Availability, number> = { online: 0, hidden: 1, offline: 2 };
const AVAILABILITY_BADGE = { online: 'success', hidden: 'warning', offline: 'default' } as const;

interface Props {
  visitor: Visitor;
  me: string;
  mobile: boolean;
  onBack(): void;
  onShowPanel(): void;
}

export function Conversation({ visitor, me, mobile, onBack, onShowPanel }: Props) {
  const { t } = useTranslation();
  const conversation = useSwitchUserMessage();
  const typing = useMonitoring((state) => state.data.typing[visitor.YQToken] ?? '');
  const agents = useMonitoring((state) => state.data.agents);
  const supervisor = useIsSupervisor();
  const targets = useAgentPeers();
  const [monitoring, setMonitoring] = useState<Set<string>>(() => new Set());
  const [transferOpen, setTransferOpen] = useState(false);
  const [transferTo, setTransferTo] = useState<string>();
  const [busy, setBusy] = useState('');
  const [noteMode, setNoteMode] = useState(false);
  const token = visitor.YQToken;
  // Notes are read wherever the messages are; written by the conversation's agent or a supervisor.
  const notes = useNotes(token);
  const canNote = visitor.serviceID === me || supervisor;
  const buttonSize = mobile ? 'small' : 'middle';

  const open = visitor.state === 'current' || visitor.state === 'monitor';
  const mine = open && visitor.serviceID === me;
  const reachable = visitor.state === 'wait' || visitor.state === 'robot' || (visitor.state === 'end' && visitor.online);
  const canAccept = reachable;
  // An agent hands on their own conversation; a supervisor any open one.
  const canTransfer = open && (mine || supervisor);
  const canEnd = visitor.state !== 'end' && (!open || mine || supervisor);
  const canMonitor = supervisor && open && !mine && !monitoring.has(token);
  const canSend = mine || reachable;
  const disabledReason = open && !mine ? t('workbench.composer.othersConversation') : t('workbench.composer.visitorGone');

  const run = async (name: string, action: () => Promise<Visitor>, done: string) => {
    setBusy(name);
    const ok = await act(action);
    setBusy('');
    if (ok) toastSuccess(done);
    return ok;
  };

  const availabilityOf = (agent: AgentPeer): Availability => {
    const state = agents[agent.uuid] ?? agent.state;
    return !agent.online ? 'offline' : state === '0' ? 'online' : 'hidden';
  };
  const agentOptions = (targets.data ?? [])
    .filter((agent) => agent.uuid !== me && agent.uuid !== visitor.serviceID)
    .map((agent) => ({ agent, availability: availabilityOf(agent) }))
    .sort((a, b) => AVAILABILITY_ORDER[a.availability] - AVAILABILITY_ORDER[b.availability])
    .map(({ agent, availability }) => {
      const full = agent.open >= agent.maxChats;
      return {
        value: agent.uuid,
        // What typing in the select finds the agent by (the label is markup).
        search: `${agent.nickname} ${agent.username}`,
        // The server refuses a transfer to an agent without a workbench open, or at their limit (409).
        disabled: !agent.online || full,
        label: (
          <span className="wb-agent-option" data-testid="wb-transfer-agent" data-availability={availability}>
            <Badge status={AVAILABILITY_BADGE[availability]} />
            <span className="wb-agent-name">{agent.nickname}</span>
            <span className="wb-muted">@{agent.username}</span>
            <span className="wb-muted">· {t(`workbench.availability.${availability}`)}</span>
            <span className="wb-muted">
              ·{' '}
              {full ? t('workbench.actions.transferFull') : t('workbench.actions.transferLoad', { open: agent.open, max: agent.maxChats })}
            </span>
          </span>
        ),
      };
    });
  const transferOptions = [
    {
      value: TRANSFER_TO_QUEUE,
      search: t('workbench.actions.transferQueue'),
      disabled: false,
      label: (
        <span className="wb-agent-option" data-testid="wb-transfer-queue">
          <SwapOutlined />
          <span className="wb-agent-name">{t('workbench.actions.transferQueue')}</span>
          <span className="wb-muted">· {t('workbench.actions.transferQueueHint')}</span>
        </span>
      ),
    },
    ...agentOptions,
  ];

  const onWithdraw = (message: ChatMessage) => {
    void workbenchApi.withdraw(token, message.onlyID).then(
      () => useMonitoring.getState().apply({ code: '2015', data: { YQToken: token, onlyID: message.onlyID } }),
      (error: Error) => Modal.error({ title: t('workbench.message.withdrawFailed'), content: error.message }),
    );
  };

  return (
    <section className="wb-conversation" data-testid="wb-conversation">
      <header className="wb-conv-head">
        {mobile && (
          <Button type="text" icon={<ArrowLeftOutlined />} onClick={onBack} aria-label={t('workbench.back')} data-testid="wb-back" />
        )}
        <Badge dot status={visitor.online ? 'success' : 'default'} offset={[-4, 28]}>
          <Avatar size={36} className="wb-avatar visitor">
            {visitor.nickname.slice(0, 1).toUpperCase()}
          </Avatar>
        </Badge>
        <div className="wb-conv-title">
          <div className="wb-conv-name">
            <span data-testid="wb-conv-name">{visitor.nickname}</span>
            <Tag color={STATE_COLOR[visitor.state]} data-testid="wb-conv-state">
              {t(`workbench.state.${visitor.state}`)}
            </Tag>
            {!visitor.online && <span className="wb-muted wb-small">{t('workbench.visitor.offline')}</span>}
          </div>
          <div className="wb-conv-sub">{sourceTitle(visitor, t)}</div>
          <ConversationLabels token={token} editable={visitor.serviceID === me || supervisor} />
        </div>
        <Tooltip title={t('workbench.panel.title')}>
          <Button
            type="text"
            icon={<InfoCircleOutlined />}
            onClick={onShowPanel}
            className="wb-panel-toggle"
            aria-label={t('workbench.panel.title')}
          />
        </Tooltip>
        <Space size={4} wrap className="wb-actions">
          <Button
            size={buttonSize}
            type={canAccept ? 'primary' : 'default'}
            icon={<CheckOutlined />}
            disabled={!canAccept}
            loading={busy === 'accept'}
            onClick={() => void run('accept', () => workbenchApi.accept(token), t('workbench.actions.accepted'))}
            data-testid="wb-accept"
          >
            {t('workbench.actions.accept')}
          </Button>
          <Tooltip title={t('workbench.actions.transfer')}>
            <Button
              size={buttonSize}
              icon={<SwapOutlined />}
              disabled={!canTransfer}
              onClick={() => {
                setTransferTo(undefined);
                setTransferOpen(true);
                // Presence and load change all day: read afresh each time the dialog opens.
                void targets.refetch();
              }}
              data-testid="wb-transfer"
            >
              {t('workbench.actions.transfer')}
            </Button>
          </Tooltip>
          {supervisor && (
            <Tooltip title={t('workbench.actions.monitorHint')}>
              <Button
                size={buttonSize}
                icon={<EyeOutlined />}
                disabled={!canMonitor}
                loading={busy === 'monitor'}
                onClick={() =>
                  void run('monitor', () => workbenchApi.monitor(token), t('workbench.actions.monitoring')).then((ok) => {
                    if (!ok) return;
                    setMonitoring((held) => new Set(held).add(token));
                    void openConversation(token);
                  })
                }
                data-testid="wb-monitor"
              >
                {t('workbench.actions.monitor')}
              </Button>
            </Tooltip>
          )}
          <Popconfirm
            title={t('workbench.actions.endConfirm')}
            okText={t('workbench.actions.end')}
            cancelText={t('workbench.quick.cancel')}
            onConfirm={() => run('end', () => workbenchApi.end(token), t('workbench.actions.ended'))}
            disabled={!canEnd}
          >
            <Button size={buttonSize} danger icon={<PoweroffOutlined />} disabled={!canEnd} loading={busy === 'end'} data-testid="wb-end">
              {t('workbench.actions.end')}
            </Button>
          </Popconfirm>
        </Space>
      </header>
      <MessageList
        token={token}
        conversation={conversation}
        me={me}
        visitorName={visitor.nickname}
        typing={typing}
        onLoadOlder={(before) => loadOlder(token, before)}
        onWithdraw={onWithdraw}
        onRetry={(message) => void sendMessage(token, message.msg, message.type, message.onlyID)}
        notes={notes.data}
      />
      {visitor.channel !== 'web' && <DeliveryBanner messages={conversation?.messages ?? []} />}
      {visitor.channel !== 'web' && <WeChatWindow messages={conversation?.messages ?? []} />}
      {canNote && (
        <div className="wb-mode-bar">
          <ComposerMode note={noteMode} onChange={setNoteMode} />
        </div>
      )}
      <div hidden={canNote && noteMode}>
        <Composer
          token={token}
          disabled={!canSend}
          disabledReason={disabledReason}
          wechat={visitor.channel !== 'web'}
          onSend={(text: string, type: MessageType, assist?: number) => void sendMessage(token, text, type, undefined, assist)}
        />
      </div>
      {canNote && (
        <div hidden={!noteMode}>
          <NoteComposer agents={targets.data ?? []} me={me} onNote={(text) => addNote(token, text)} />
        </div>
      )}
      <Modal
        open={transferOpen}
        title={t('workbench.actions.transferTitle', { name: visitor.nickname })}
        okText={t('workbench.actions.transfer')}
        cancelText={t('workbench.quick.cancel')}
        okButtonProps={{ disabled: !transferTo, loading: busy === 'transfer' }}
        onCancel={() => setTransferOpen(false)}
        onOk={() => {
          if (!transferTo) return;
          const done = transferTo === TRANSFER_TO_QUEUE ? t('workbench.actions.transferRequeued') : t('workbench.actions.transferred');
          void run('transfer', () => workbenchApi.transfer(token, transferTo), done).then((ok) => {
            if (ok) setTransferOpen(false);
          });
        }}
        destroyOnHidden
      >
        <p className="wb-muted">{t('workbench.actions.transferHint')}</p>
        <Select
          className="wb-transfer-select"
          placeholder={t('workbench.actions.transferPick')}
          value={transferTo}
          onChange={setTransferTo}
          options={transferOptions}
          showSearch={{ optionFilterProp: 'search' }}
          notFoundContent={t('workbench.actions.transferNone')}
          data-testid="wb-transfer-select"
        />
      </Modal>
    </section>
  );
}
