import type { WidgetSettings } from '@parley/protocol';
import { useEffect, useReducer, useRef, useState } from 'preact/hooks';
import { Composer } from './Composer';
import type { ChatClient, ChatState, Person } from './client';
import { ChevronDown, Refresh } from './icons';
import { LetterForm } from './Letter';
import type { Lang, Translate } from './lib/i18n';
import { safeUrl } from './lib/linkify';
import { Avatar, MessageList } from './Messages';
import { RatingCard } from './Rating';

interface Props {
  client: ChatClient;
  t: Translate;
  lang: Lang;
  embedded: boolean;
  onClose: () => void;
  draft?: string | undefined;
  onKeepDraft?: ((text: string) => void) | undefined;
}

function useChatState(client: ChatClient): ChatState {
  const [, rerender] = useReducer((count: number) => count + 1, 0);
  const state = client.state;
  useEffect(() => {
    const unsubscribe = client.subscribe(() => rerender(undefined));
    // Effects run after paint (later still in a hidden frame): a change made before we listened is caught here.
    if (client.state !== state) rerender(undefined);
    return unsubscribe;
  }, [client]);
  return state;
}

/**
 * The agent of the conversation: from 2000 when it came during this page, else (after a reload) the
 * author of the latest agent message.
 */
function currentAgent(state: ChatState): Person | null {
  if (state.agent) return state.agent;
  for (let i = state.items.length - 1; i >= 0; i--) {
    const item = state.items[i];
    if (item?.role === 'service' && item.nickname) return { name: item.nickname, avatar: '' };
  }
  return null;
}

/** What the header says under the title. */
function statusLine(state: ChatState, t: Translate): { text: string; live: boolean } {
  switch (state.conversation) {
    case 'current':
    case 'monitor': {
      const agent = currentAgent(state);
      return { text: agent?.name ? t('chatting', { name: agent.name }) : t('online'), live: true };
    }
    case 'wait':
      // The banner under the header gives the position; the header stays short.
      return { text: t('waiting'), live: true };
    case 'robot':
      return { text: t('robot', { name: state.robot?.name || t('robotName') }), live: true };
    default:
      if (state.settings?.robot) return { text: t('robot', { name: state.settings.robot.name || t('robotName') }), live: true };
      return { text: state.settings?.online === false ? t('offline') : t('online'), live: state.settings?.online !== false };
  }
}

const ACTIVE = new Set(['current', 'monitor', 'robot', 'wait']);

/** What the window says once the visitor gave an address, by what the server did about transcript mails. */
const TRANSCRIPT_TEXT = { sent: 'transcriptSent', confirmed: 'transcriptConfirmed', limited: 'transcriptLimited' } as const;

/** The pre-chat form comes before the visitor's first message, once, when the settings ask for it. */
function needsPreChat(state: ChatState): boolean {
  const preChat = state.settings?.preChat;
  return preChat?.enabled === true && preChat.fields.length > 0 && !state.preChatDone && !state.items.some((item) => item.role === 'user');
}

/** The head shows the agent (their picture, else the site's agent picture), or the site's logo while nobody serves. */
function headAvatar(person: Person | null, settings: WidgetSettings | null): Person | null {
  if (!settings) return person;
  if (person) return { ...person, avatar: person.avatar || settings.window.agentAvatar };
  return settings.window.logo ? { name: '', avatar: settings.window.logo } : null;
}

/** The site's introduction and advertisement above the conversation, when it set them. */
function WindowIntro({ settings }: { settings: WidgetSettings }) {
  const { intro, ad } = settings.window;
  const image = ad.image ? safeUrl(ad.image) : null;
  const link = ad.url ? safeUrl(ad.url) : null;
  if (!intro && !image) return null;
  return (
    <div class="intro">
      {intro && <p class="intro-text">{intro}</p>}
      {image &&
        (link ? (
          <a href={link} target="_blank" rel="noopener noreferrer">
            <img class="intro-ad" src={image} alt="" />
          </a>
        ) : (
          <img class="intro-ad" src={image} alt="" />
        ))}
    </div>
  );
}

export function App({ client, t, lang, embedded, onClose, draft, onKeepDraft }: Props) {
  const state = useChatState(client);
  const [chosenView, setView] = useState<'chat' | 'letter' | null>(null);
  // Until the visitor picks one, offline visitors without a conversation get the form.
  const settings = state.settings;
  // The robot answers whoever writes, so its visitors get the chat; the letter form stays a click away.
  const away = settings?.online === false && !settings.robot;
  const view = chosenView ?? (away && !ACTIVE.has(state.conversation ?? '') ? 'letter' : 'chat');
  const [toast, setToast] = useState('');
  const toastTimer = useRef<ReturnType<typeof setTimeout>>(undefined);

  const problem = (message: string) => {
    setToast(message);
    clearTimeout(toastTimer.current);
    toastTimer.current = setTimeout(() => setToast(''), 4000);
  };

  const title = settings?.title || t('defaultTitle');
  const status = statusLine(state, t);
  const headPerson = state.conversation === 'robot' ? state.robot : ACTIVE.has(state.conversation ?? '') ? currentAgent(state) : null;

  let body = null;
  if (state.phase === 'error') {
    body = (
      <div class="center-box">
        <p>{t('loadFailed')}</p>
        <button type="button" class="secondary" onClick={() => void client.init()}>
          <Refresh size={16} /> {t('retry')}
        </button>
      </div>
    );
  } else if (state.phase === 'loading' || !settings) {
    body = (
      <div class="center-box">
        <span class="spinner" />
        <p>{t('loading')}</p>
      </div>
    );
  } else if (settings.region.blocked) {
    // A blocked region may not chat: the site's text, and nothing to type in.
    body = (
      <div class="center-box" role="status">
        <p class="blocked">{settings.region.text}</p>
      </div>
    );
  } else if (view === 'letter') {
    body = (
      <div class="scroll">
        <LetterForm
          t={t}
          settings={settings}
          intro={settings.workHours.open ? '' : settings.workHours.offlineText}
          hasHistory={state.items.length > 0}
          onSubmit={(values) => client.leaveLetter(values, t('visitor'))}
          onHistory={() => setView('chat')}
        />
      </div>
    );
  } else if (needsPreChat(state)) {
    body = (
      <div class="scroll">
        <LetterForm
          t={t}
          settings={settings}
          hasHistory={false}
          preChat
          onSubmit={(values) => client.submitPreChat(values)}
          onHistory={() => setView('chat')}
        />
      </div>
    );
  } else {
    const rating = state.rating;
    body = (
      <>
        {state.lost && <div class="banner warn delayed">{t('reconnecting')}</div>}
        {!state.lost && state.conversation === 'wait' && (
          <div class="banner">
            <span class="pulse" />
            {state.position ? t('queueBanner', { n: state.position }) : t('waitBanner')}
          </div>
        )}
        {!state.lost && state.conversation === 'robot' && (
          <div class="banner robot-bar">
            <span>{t('robotAnswering', { name: state.robot?.name || t('robotName') })}</span>
            <button
              type="button"
              class="secondary person"
              onClick={() =>
                client.handover().catch((error: unknown) => problem(error instanceof Error && error.message ? error.message : t('failed')))
              }
            >
              {t('talkToPerson')}
            </button>
          </div>
        )}
        {!state.lost && settings.region.text && <div class="banner">{settings.region.text}</div>}
        {state.transcript && (
          <div class="banner" role="status">
            {t(TRANSCRIPT_TEXT[state.transcript])}{' '}
            <button type="button" class="link" onClick={() => client.dismissTranscript()}>
              {t('gotIt')}
            </button>
          </div>
        )}
        {!state.lost && away && !ACTIVE.has(state.conversation ?? '') && (
          <div class="banner">
            {settings.workHours.open ? t('letterOffline') : settings.workHours.offlineText || t('letterOffline')}{' '}
            <button type="button" class="link" onClick={() => setView('letter')}>
              {t('letterLink')}
            </button>
          </div>
        )}
        <WindowIntro settings={settings} />
        <MessageList
          state={state}
          lang={lang}
          t={t}
          welcome={settings.welcome}
          title={title}
          onRetry={(onlyID) => client.retry(onlyID)}
          onEarlier={() => void client.loadEarlier()}
          onAsk={(question) => client.sendText(question)}
          after={
            rating
              ? {
                  seq: rating.afterSeq,
                  node: <RatingCard t={t} done={rating.done} onRate={(score, comment) => client.rate(score, comment)} />,
                }
              : null
          }
        />
        {toast && (
          <div class="toast" role="alert">
            {toast}
          </div>
        )}
        <Composer
          t={t}
          settings={settings}
          onSend={(text) => client.sendText(text)}
          onFile={(file) => client.sendFile(file)}
          onDraft={(text) => client.typing.update(text)}
          initial={draft}
          onKeep={onKeepDraft}
          onProblem={problem}
        />
      </>
    );
  }

  return (
    <div class={`app${embedded ? ' embedded' : ''}`}>
      <header class="head">
        <div class="head-avatar">
          <Avatar person={headAvatar(headPerson, settings)} robot={state.conversation === 'robot'} size={40} />
          <span class={`dot${status.live ? ' live' : ''}`} />
        </div>
        <div class="head-text">
          <div class="head-title">{title}</div>
          <div class="head-status">{status.text}</div>
        </div>
        {embedded && (
          <button type="button" class="head-button" aria-label={t('close')} title={t('close')} onClick={onClose}>
            <ChevronDown size={22} />
          </button>
        )}
      </header>
      <main class="body">{body}</main>
    </div>
  );
}
