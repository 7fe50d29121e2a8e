import {
  type AgentIndex,
  type AgentPeer,
  type AgentStateData,
  type Frame,
  isFrame,
  type Message,
  type MessageType,
  frame as protocolFrame,
  SocketCode,
  type Visitor,
} from '@parley/protocol';
import { call } from '../../lib/api';
import { toastError } from '../../lib/feedback';
import { HttpError } from '../../lib/http';
import { i18n } from '../../lib/i18n';
import { queryClient } from '../../lib/queryClient';
import { AgentSocket, agentSocketUrl, isSessionClose } from '../../lib/socket';
import { useSession } from '../../stores/session';
import { letterArrived, refreshLetters } from '../letter/queries';
import { resyncThisDevice, visibilityFrame } from '../push/device';
import { listQueryKey } from '../shared/list';
import { blinkTitle, currentAlerts, notifyDesktop, playSound, setAlertSources } from './alerts';
import { workbenchApi } from './api';
import { useAssist } from './assist';
import { type Effect, patchPeers } from './frames';
import { type ChatMessage, lastSeq, newOnlyId, PAGE_SIZE } from './model';
import { mentioned, noteArrived, refreshNotes } from './notes';
import { workbenchKeys } from './queries';
import { useMonitoring } from './store';

/** Missed messages asked for at once after a gap or a reconnection (the server's catch-up limit). */
const CATCH_UP_LIMIT = 200;

let socket: AgentSocket | null = null;
let index: AgentIndex | null = null;
const later = new Map<string, ReturnType<typeof setTimeout>>();

/** Runs a task once per key within a short window: a burst of frames asks the server once. */
function debounce(key: string, ms: number, task: () => void): void {
  clearTimeout(later.get(key));
  later.set(
    key,
    setTimeout(() => {
      later.delete(key);
      task();
    }, ms),
  );
}

const store = () => useMonitoring.getState();

export function refreshList(): Promise<void> {
  return workbenchApi.userList().then(
    ({ list }) => store().setVisitors(list),
    () => undefined,
  );
}

/** The newest page of a conversation and its visited pages; marks it read. */
export async function openConversation(token: string): Promise<void> {
  const [messages, visits] = await Promise.allSettled([workbenchApi.messages(token, { limit: PAGE_SIZE }), workbenchApi.visits(token)]);
  if (messages.status === 'fulfilled') store().putMessages(token, messages.value.list, 'latest');
  if (visits.status === 'fulfilled') store().setVisits(token, visits.value.list);
  void workbenchApi.read(token).catch(() => undefined);
}

export async function loadOlder(token: string, beforeSeq: number): Promise<void> {
  const { list } = await workbenchApi.messages(token, { beforeSeq, limit: PAGE_SIZE });
  store().putMessages(token, list, 'older');
}

/** Reads what a conversation missed: everything after the last seq held. */
export async function catchUp(token: string): Promise<void> {
  const held = store().data.conversations[token];
  if (!held?.loaded) return;
  for (;;) {
    const after = lastSeq(store().data.conversations[token]?.messages ?? []);
    const { list } = await workbenchApi
      .messages(token, { afterSeq: after, limit: CATCH_UP_LIMIT })
      .catch(() => ({ list: [] as Message[] }));
    store().putMessages(token, list, 'newer');
    if (list.length < CATCH_UP_LIMIT) return;
  }
}

function describeVisitor(token: string): string {
  return store().data.visitors[token]?.nickname ?? '';
}

function preview(message: Message): string {
  if (message.type === 'image') return i18n.t('workbench.preview.image');
  if (message.type === 'file') return i18n.t('workbench.preview.file');
  return message.msg.slice(0, 120);
}

function run(effect: Effect): void {
  switch (effect.kind) {
    case 'identify':
      if (index) socket?.send({ code: '5000', type: 'service', uuid: index.info.uuid });
      // Whether this console is on screen decides whether the agent is pushed instead (CONTRACT §14).
      socket?.send(visibilityFrame());
      return;
    case 'reload':
      // Seed §4: the session is no longer valid here; start again from a clean page.
      stopLive();
      try {
        localStorage.clear();
      } catch {
        // Blocked storage: the reload still ends the session on screen.
      }
      window.location.reload();
      return;
    case 'newVisitor': {
      const alerts = currentAlerts();
      playSound(alerts.newUserSound);
      if (alerts.titleBlink) blinkTitle(i18n.t('workbench.blink.on'), i18n.t('workbench.blink.off'));
      if (alerts.notifyNewUser) notifyDesktop('newUser', i18n.t('workbench.notify.newUser'), effect.visitor.nickname);
      return;
    }
    case 'newMessage': {
      const alerts = currentAlerts();
      playSound(alerts.newMsgSound);
      if (alerts.titleBlink) blinkTitle(i18n.t('workbench.blink.on'), i18n.t('workbench.blink.off'));
      if (alerts.notifyNewMsg)
        notifyDesktop(
          'newMsg',
          i18n.t('workbench.notify.newMsg', { name: effect.message.nickname || describeVisitor(effect.message.YQToken) }),
          preview(effect.message),
        );
      return;
    }
    case 'catchUp':
      debounce(`catchUp:${effect.YQToken}`, 200, () => void catchUp(effect.YQToken));
      return;
    case 'refreshList':
      debounce('refreshList', 300, () => void refreshList());
      return;
    case 'markRead':
      debounce(`read:${effect.YQToken}`, 500, () => void workbenchApi.read(effect.YQToken).catch(() => undefined));
      return;
  }
}

/** A draft preview nobody has touched for this long is stale: the visitor stopped typing. */
const TYPING_STALE_MS = 15_000;

/** An 8100 unanswered this long is sent again over HTTP (the server drops the copy by its onlyID). */
const SOCKET_ANSWER_MS = 10_000;
/** Sends over the socket waiting for their 8101 or 8102, by onlyID; settled with the HTTP fallback's answer. */
const awaitingSends = new Map<string, { done: (answer: Message | HttpError | null) => void }>();

/**
 * Stores our message over the socket while it is open (8100, answered 8101 or 8102), over HTTP otherwise,
 * or when the socket drops or stays silent first: both are idempotent on onlyID.
 */
async function storeMessage(body: { YQToken: string; msg: string; onlyID: string; type: MessageType; assist?: number }): Promise<Message> {
  if (socket?.connected) {
    const answer = await new Promise<Message | HttpError | null>((resolve) => {
      const timer = setTimeout(() => done(null), SOCKET_ANSWER_MS);
      const done = (value: Message | HttpError | null) => {
        clearTimeout(timer);
        awaitingSends.delete(body.onlyID);
        resolve(value);
      };
      awaitingSends.set(body.onlyID, { done });
      socket?.send({ code: SocketCode.send, data: body });
    });
    if (answer instanceof HttpError) throw answer;
    if (answer) return answer;
  }
  return workbenchApi.send(body);
}

export function handleFrame(frame: Frame): void {
  if (isFrame(frame, SocketCode.sent)) {
    awaitingSends.get(frame.data.onlyID)?.done(frame.data);
    return;
  }
  if (isFrame(frame, SocketCode.sendRefused)) {
    awaitingSends.get(frame.data.onlyID)?.done(new HttpError(frame.data.status, frame.data.msg));
    return;
  }
  if (isFrame(frame, SocketCode.letter)) {
    void letterArrived(frame.data);
    return;
  }
  if (isFrame(frame, SocketCode.note)) {
    noteArrived(frame.data);
    return;
  }
  if (isFrame(frame, SocketCode.mentioned)) {
    mentioned(frame.data);
    return;
  }
  if (isFrame(frame, SocketCode.assist)) {
    useAssist.getState().offer(frame.data);
    return;
  }
  const { effects } = store().apply(frame);
  for (const effect of effects) run(effect);
  const typingOf = isFrame(frame, SocketCode.typing) ? frame.data.YQToken : undefined;
  if (typingOf)
    debounce(`typing:${typingOf}`, TYPING_STALE_MS, () => store().apply(protocolFrame(SocketCode.typing, { YQToken: typingOf, text: '' })));
  if (isFrame(frame, SocketCode.agentState)) agentChanged(frame.data);
}

/** Another agent's console opened or closed, or someone's availability changed: the agent list follows. */
function agentChanged(change: AgentStateData): void {
  // This agent's own availability changed elsewhere (another tab): the toggle follows.
  if (index && change.uuid === index.info.uuid) {
    const { state } = change;
    queryClient.setQueryData<AgentIndex>(workbenchKeys.index, (old) => (old ? { ...old, info: { ...old.info, state } } : old));
  }
  // The agent list shows each agent's presence: it is read again when one changes.
  void queryClient.invalidateQueries({ queryKey: listQueryKey('service') });
  const peers = queryClient.getQueryData<AgentPeer[]>(workbenchKeys.agents);
  if (!peers) return;
  const patched = patchPeers(peers, change);
  if (patched) queryClient.setQueryData<AgentPeer[]>(workbenchKeys.agents, patched);
  else void queryClient.invalidateQueries({ queryKey: workbenchKeys.agents });
}

/** Seed §4: one connection once /api/index has loaded; a second call for the same agent changes nothing. */
export function startLive(info: AgentIndex): void {
  if (socket && index?.info.uuid === info.info.uuid) {
    index = info;
    return;
  }
  stopLive();
  index = info;
  let opened = false;
  store().reset(info.info.uuid);
  void refreshList();
  void readAlertSources();
  socket = new AgentSocket({
    url: () => agentSocketUrl(useSession.getState().token),
    onFrame: handleFrame,
    onStatus: (status) => {
      store().setConnection(status);
      // What the dropped socket had not answered goes over HTTP.
      if (status !== 'open') for (const waiting of awaitingSends.values()) waiting.done(null);
      // What was pushed before this socket was open (the lists were read while it connected) is read again.
      if (status === 'open' && !opened) {
        opened = true;
        void refreshList();
        void refreshLetters();
      }
    },
    onReconnect: () => {
      void refreshList();
      // Agents may have come and gone while this socket was away: their 8007s were missed.
      void queryClient.invalidateQueries({ queryKey: workbenchKeys.agents });
      void refreshLetters();
      refreshNotes();
      for (const [token, conversation] of Object.entries(store().data.conversations)) if (conversation.loaded) void catchUp(token);
    },
    onClose: (code) => {
      // An expired token is refreshed by any call through the HTTP client; a bad one ends the session there.
      if (isSessionClose(code)) void call('GET /api/index', undefined, { silent: code === 4402 }).catch(() => undefined);
    },
  });
  socket.open();
  void resyncThisDevice().catch(() => undefined);
}

/**
 * The team's alert defaults and the agent's own choices; until they arrive (or if they cannot be read)
 * the built-in defaults apply.
 */
async function readAlertSources(): Promise<void> {
  const [team, personal] = await Promise.all([
    call('GET /api/settings/desktopSetting', undefined, { silent: true }).catch(() => undefined),
    call('GET /api/personal', undefined, { silent: true }).catch(() => undefined),
  ]);
  setAlertSources({ ...(team ? { team } : {}), ...(personal ? { personal: personal.notify } : {}) });
}

export function stopLive(): void {
  socket?.close();
  socket = null;
  index = null;
  for (const timer of later.values()) clearTimeout(timer);
  later.clear();
}

if (typeof window !== 'undefined') window.addEventListener('session-reset', stopLive);
if (typeof document !== 'undefined')
  document.addEventListener('visibilitychange', () => {
    if (socket?.connected) socket.send(visibilityFrame());
  });

function errorText(error: unknown): string {
  return error instanceof HttpError ? error.message : i18n.t('workbench.errors.generic');
}

/**
 * Our message: shown at once, then sent (idempotent on onlyID, so a retry never doubles it). `assist` names
 * the pair whose suggested answer it was made from, which the server counts.
 */
export async function sendMessage(
  token: string,
  msg: string,
  type: MessageType = 'text',
  onlyID = newOnlyId(),
  assist?: number,
): Promise<void> {
  if (!index) return;
  const pending: ChatMessage = {
    id: 0,
    YQToken: token,
    seq: 0,
    onlyID,
    role: 'service',
    type,
    msg,
    nickname: index.info.nickname,
    serviceID: index.info.uuid,
    time: new Date().toISOString(),
    withdrawn: false,
    pending: true,
  };
  store().addPending(pending);
  try {
    const stored = await storeMessage({ YQToken: token, msg, onlyID, type, ...(assist === undefined ? {} : { assist }) });
    handleFrame(protocolFrame(SocketCode.serviceMessage, stored, index.info.uuid));
  } catch (error) {
    store().markFailed(token, onlyID);
    toastError(errorText(error));
  }
}

/** Conversation actions: the answer patches the list at once; frames confirm it for everyone else. */
export async function act(action: () => Promise<Visitor>): Promise<boolean> {
  try {
    store().patchVisitor(await action());
    return true;
  } catch (error) {
    toastError(errorText(error));
    void refreshList();
    return false;
  }
}

export function currentIndex(): AgentIndex | null {
  return index;
}
