import { inkOn } from '@parley/protocol/contrast';
import { render } from 'preact';
import { BRIDGE_TAG, type ChatMessage, LINK_PATTERN, type LoaderTexts, readHostMessage, TOKEN_PATTERN } from '../bridge';
import { App } from './App';
import { ChatClient } from './client';
import { createApi } from './lib/api';
import { pickLang, translator } from './lib/i18n';
import { lookOf } from './lib/look';
import './style.css';

const params = new URLSearchParams(location.search);

/** The embedding page's origin, as the loader passed it; only a real http(s) origin is trusted. */
function siteOrigin(value: string | null): string | null {
  if (!value) return null;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value ? value : null;
  } catch {
    return null;
  }
}

const site = params.get('embed') === '1' && window.parent !== window ? siteOrigin(params.get('site')) : null;
const embedded = site !== null;
const requestedLang = params.get('lang') ?? navigator.language;
const lang = pickLang(requestedLang);
const t = translator(lang);
document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';

/**
 * What the loader kept on the host page: the token, for when this frame's own storage is blocked, and the
 * draft the visitor left on the site's previous page.
 */
const fragment = new URLSearchParams(location.hash.slice(1));
if (location.hash) history.replaceState(null, '', location.pathname + location.search);
function tokenFromFragment(): string | undefined {
  const token = fragment.get('yq');
  return token && TOKEN_PATTERN.test(token) ? token : undefined;
}
const keptDraft = embedded ? (fragment.get('draft') ?? '').slice(0, 5000) : '';

const toHost = (message: ChatMessage) => {
  // Pinned to the embedding page's origin: if the frame sits anywhere else, the browser drops it.
  if (site) window.parent.postMessage(message, site);
};

/** The chat link the visitor came through: `/chat?link=<key>`, or passed on by the loader. */
const link = params.get('link');

const loaderTexts: LoaderTexts = {
  open: t('launcherOpen'),
  close: t('launcherClose'),
  chat: t('launcherChat'),
  later: t('launcherLater'),
  blink: t('launcherBlink'),
  chatTitle: t('launcherTitle'),
  nav: t('launcherNav'),
};

const baseTitle = document.title;
const client = new ChatClient({
  api: createApi(requestedLang),
  t,
  lang: requestedLang,
  link: link && LINK_PATTERN.test(link) ? link : undefined,
  site: site ?? location.origin,
  hostToken: embedded ? tokenFromFragment() : undefined,
  onToken: (token) => toHost({ tag: BRIDGE_TAG, type: 'token', token }),
  page: embedded
    ? { url: params.get('url') || location.href, title: params.get('title') ?? '', referrer: params.get('referrer') ?? '' }
    : { url: location.href, title: document.title, referrer: document.referrer },
  onUnread: (count, preview) => {
    if (embedded) toHost({ tag: BRIDGE_TAG, type: 'unread', count, ...(preview ? { preview } : {}) });
    else document.title = count > 0 ? `(${count}) ${baseTitle}` : baseTitle;
  },
  onMessage: (message) => toHost({ tag: BRIDGE_TAG, type: 'message', message }),
  onSettings: (settings) => {
    document.documentElement.style.setProperty('--c', settings.color);
    document.documentElement.style.setProperty('--ci', inkOn(settings.color));
    if (!embedded && settings.title) document.title = settings.title;
    const look = lookOf(settings, settings.title || t('defaultTitle'), lang, loaderTexts);
    toHost({ tag: BRIDGE_TAG, type: 'look', look });
  },
});

// Seen means the window is open (always, for the page of its own) and the tab is in front: a message
// that arrives otherwise counts as unread, so the loader can badge it and blink the host page's title.
let open = !embedded;
const updateSeen = (at?: number) => client.setVisible(open && document.visibilityState === 'visible', at);
document.addEventListener('visibilitychange', () => updateSeen());
updateSeen();

if (embedded) {
  addEventListener('message', (event: MessageEvent) => {
    if (event.origin !== site || event.source !== window.parent) return;
    const message = readHostMessage(event.data);
    if (message?.type === 'page') client.reportPage(message.url, message.title);
    else if (message?.type === 'command') void client[message.command](message.data);
    else if (message?.type === 'visibility') {
      open = message.open;
      updateSeen(message.at);
      if (open && innerWidth > 480) document.querySelector<HTMLTextAreaElement>('.composer textarea')?.focus();
    }
  });
  addEventListener(
    'keydown',
    (event) => {
      if (event.key === 'Escape') {
        toHost({ tag: BRIDGE_TAG, type: 'close' });
        return;
      }
      // Keys typed just after opening, before the composer has focus, are sent to it instead of lost:
      // focus moved during keydown receives the character that follows.
      const composer = document.querySelector<HTMLTextAreaElement>('.composer textarea');
      const typing = event.key.length === 1 && !event.ctrlKey && !event.metaKey && !event.altKey;
      if (typing && composer && (document.activeElement === document.body || document.activeElement === null)) composer.focus();
    },
    true,
  );
}

const root = document.getElementById('app');
if (root) {
  render(
    <App
      client={client}
      t={t}
      lang={lang}
      embedded={embedded}
      onClose={() => toHost({ tag: BRIDGE_TAG, type: 'close' })}
      draft={keptDraft}
      onKeepDraft={embedded ? (text) => toHost({ tag: BRIDGE_TAG, type: 'draft', text: text.slice(0, 5000) }) : undefined}
    />,
    root,
  );
}
void client.init();
