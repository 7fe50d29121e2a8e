import type { Frame, Message, Visit, Visitor } from '@parley/protocol';
import { create } from 'zustand';
import type { SocketStatus } from '../../lib/socket';
import { type Applied, applyFrame, emptyLive, type LiveData } from './frames';
import {
  type ChatMessage,
  type Conversation,
  GROUPS,
  type GroupKey,
  listGroupOf,
  mergeMessages,
  PAGE_SIZE,
  sourceTitle,
  type Translate,
} from './model';

/** The seed's visitor being looked at: what its source title is built from. */
export interface SwitchUser {
  referrer: string;
  keyWord: string;
  YQToken: string;
}

export interface Notice {
  title: string;
  type: 'info' | 'success' | 'warning' | 'error';
  icon: string;
}

export interface MonitoredAgent {
  uuid: string;
  state: string;
}

/** A marker that makes a repeated message differ from the previous one, so that the change is seen. */
export const REPEAT_MARKER = '\u200b';

interface MonitoringState {
  data: LiveData;
  connection: SocketStatus;
  switchUser: SwitchUser;
  sourceTitle: string;
  /** Text handed to the composer (a quick reply); see setSendMessage. */
  sendMessage: string;
  notices: Notice;
  /** The visitor-list groups open on screen; all of them at first. */
  activeNames: string[];
  reset(me: string): void;
  setConnection(status: SocketStatus): void;
  apply(frame: Frame): Applied;
  setVisitors(list: Visitor[]): void;
  /** Stores a page of messages: the newest ('latest'), older ones ('older') or missed ones ('newer'). */
  putMessages(token: string, list: Message[], page: 'latest' | 'older' | 'newer'): void;
  addPending(message: ChatMessage): void;
  markFailed(token: string, onlyID: string): void;
  setVisits(token: string, list: Visit[]): void;
  patchVisitor(visitor: Visitor): void;
  setSwitchUser(visitor: Visitor | null, t: Translate): void;
  setSendMessage(text: string): void;
  setMonitoredList(list: MonitoredAgent[] | null | undefined): void;
  switchServiceState(uuid: string, state: string): void;
  addActiveNames(items: { uuid: string }[]): void;
  setActiveNames(names: string[]): void;
}

const EMPTY_USER: SwitchUser = { referrer: '', keyWord: '', YQToken: '' };
const INFO_NOTICE: Notice = { title: '', type: 'info', icon: 'message' };

/** Seed §4 "Monitoring store": the workbench's live data and the visitor on screen. */
export const useMonitoring = create<MonitoringState>((set, get) => ({
  data: emptyLive(),
  connection: 'connecting',
  switchUser: EMPTY_USER,
  sourceTitle: '',
  sendMessage: '',
  notices: INFO_NOTICE,
  activeNames: [...GROUPS],

  reset(me) {
    // Agents and their availability are the same whoever looks; the list may have arrived first.
    set({
      data: { ...emptyLive(me), agents: get().data.agents },
      switchUser: EMPTY_USER,
      sourceTitle: '',
      sendMessage: '',
      notices: INFO_NOTICE,
    });
  },

  setConnection(connection) {
    set({ connection });
  },

  apply(frame) {
    const applied = applyFrame(get().data, frame);
    if (applied.data !== get().data) set({ data: applied.data });
    return applied;
  },

  setVisitors(list) {
    set(({ data }) => {
      const visitors: Record<string, Visitor> = {};
      for (const visitor of list) visitors[visitor.YQToken] = visitor;
      // The conversation on screen stays listed even when the server no longer counts it as active.
      const selected = data.visitors[data.selected];
      if (selected && !visitors[selected.YQToken]) visitors[selected.YQToken] = { ...selected, online: false };
      if (data.selected && visitors[data.selected]) visitors[data.selected] = { ...(visitors[data.selected] as Visitor), unreadNumber: 0 };
      return { data: { ...data, visitors } };
    });
  },

  putMessages(token, list, page) {
    set(({ data }) => {
      const held: Conversation = data.conversations[token] ?? { messages: [], loaded: false, hasMore: true };
      const conversation: Conversation = {
        messages: mergeMessages(held.messages, list),
        loaded: held.loaded || page === 'latest',
        // Only a read of older messages (or the first page) tells whether more lie further back.
        hasMore: page === 'newer' ? held.hasMore : list.length >= PAGE_SIZE,
      };
      return { data: { ...data, conversations: { ...data.conversations, [token]: conversation } } };
    });
  },

  addPending(message) {
    set(({ data }) => {
      const held: Conversation = data.conversations[message.YQToken] ?? { messages: [], loaded: false, hasMore: true };
      return {
        data: {
          ...data,
          conversations: { ...data.conversations, [message.YQToken]: { ...held, messages: mergeMessages(held.messages, [message]) } },
        },
      };
    });
  },

  markFailed(token, onlyID) {
    set(({ data }) => {
      const held = data.conversations[token];
      if (!held) return {};
      const messages = held.messages.map((message) =>
        message.onlyID === onlyID && message.seq === 0 ? { ...message, failed: true } : message,
      );
      return { data: { ...data, conversations: { ...data.conversations, [token]: { ...held, messages } } } };
    });
  },

  setVisits(token, list) {
    set(({ data }) => ({ data: { ...data, visits: { ...data.visits, [token]: list } } }));
  },

  patchVisitor(visitor) {
    set(({ data }) => {
      const held = data.visitors[visitor.YQToken];
      // The answer of an action may be older than a frame already applied; its message preview is kept if newer.
      const lastMessage =
        held?.lastMessage && (!visitor.lastMessage || held.lastMessage.seq > visitor.lastMessage.seq)
          ? held.lastMessage
          : visitor.lastMessage;
      return { data: { ...data, visitors: { ...data.visitors, [visitor.YQToken]: { ...visitor, lastMessage } } } };
    });
  },

  setSwitchUser(visitor, t) {
    set(({ data }) => {
      if (!visitor) return { data: { ...data, selected: '' }, switchUser: EMPTY_USER, sourceTitle: '' };
      const held = data.visitors[visitor.YQToken];
      const visitors = held ? { ...data.visitors, [visitor.YQToken]: { ...held, unreadNumber: 0 } } : data.visitors;
      return {
        data: { ...data, selected: visitor.YQToken, visitors },
        switchUser: { referrer: visitor.referrer, keyWord: visitor.keyword, YQToken: visitor.YQToken },
        sourceTitle: sourceTitle(visitor, t),
        notices: { title: t('workbench.notice.preview', {}), type: 'info', icon: 'message' },
      };
    });
  },

  setSendMessage(text) {
    const previous = get().sendMessage;
    set({ sendMessage: text === previous.replaceAll(REPEAT_MARKER, '') ? `${previous}${REPEAT_MARKER}` : text });
  },

  setMonitoredList(list) {
    const agents: Record<string, string> = {};
    for (const item of list ?? []) agents[item.uuid] = item.state;
    set(({ data }) => ({ data: { ...data, agents } }));
  },

  switchServiceState(uuid, state) {
    set(({ data }) => (uuid in data.agents ? { data: { ...data, agents: { ...data.agents, [uuid]: state } } } : {}));
  },

  addActiveNames(items) {
    set(({ activeNames }) => ({ activeNames: [...activeNames, ...items.map((item) => item.uuid)] }));
  },

  setActiveNames(names) {
    set({ activeNames: names });
  },
}));

export function useSelectedVisitor(): Visitor | undefined {
  return useMonitoring((state) => state.data.visitors[state.data.selected]);
}

/** The seed's switchUserMessage: the open conversation's messages. */
export function useSwitchUserMessage(): Conversation | undefined {
  return useMonitoring((state) => state.data.conversations[state.data.selected]);
}

/** The seed's switchUserUrl: pages the open conversation's visitor has opened, newest first. */
export function useSwitchUserUrl(): Visit[] | undefined {
  return useMonitoring((state) => state.data.visits[state.data.selected]);
}

export function visitorsByGroup(visitors: Record<string, Visitor>): Record<GroupKey, Visitor[]> {
  const groups: Record<GroupKey, Visitor[]> = { current: [], left: [], wait: [], robot: [], ended: [] };
  for (const visitor of Object.values(visitors)) {
    groups[listGroupOf(visitor)].push(visitor);
  }
  const recent = (visitor: Visitor) => visitor.lastMessage?.time ?? visitor.created_at;
  // Visitors still on the site come first: they are the ones who can answer.
  for (const list of Object.values(groups)) list.sort((a, b) => Number(b.online) - Number(a.online) || recent(b).localeCompare(recent(a)));
  return groups;
}
