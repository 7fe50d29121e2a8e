/**
 * The embed script. It draws the launcher, the invitation and the chat window frame inside one shadow
 * root, so the host page's styles and ours never meet, and it talks to the chat window (an iframe on
 * our origin) with postMessage pinned to that origin.
 */
import {
  BRIDGE_TAG,
  FRAME_COMMANDS,
  type FrameCommand,
  type HostMessage,
  type LauncherLook,
  LINK_PATTERN,
  type LoaderTexts,
  TOKEN_PATTERN,
} from '../bridge';
import { safeColor } from '../colour';
import { clampPx, invitationAllowedAt, isMobile, nextInvitationIn } from './rules';
import { CSS } from './style';

const TAG = 'parley-widget';
const CHAT_ICON =
  '<svg viewBox="0 0 24 24" fill="currentColor" aria-hidden="true"><path d="M12 3C6.5 3 2 6.9 2 11.7c0 2.6 1.3 4.9 3.4 6.5L4.6 21.3c-.1.4.3.7.7.5l3.7-1.9c.9.2 1.9.3 3 .3 5.5 0 10-3.9 10-8.7S17.5 3 12 3Zm-4.5 10a1.3 1.3 0 1 1 0-2.6 1.3 1.3 0 0 1 0 2.6Zm4.5 0a1.3 1.3 0 1 1 0-2.6 1.3 1.3 0 0 1 0 2.6Zm4.5 0a1.3 1.3 0 1 1 0-2.6 1.3 1.3 0 0 1 0 2.6Z"/></svg>';
const CLOSE_ICON =
  '<svg viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2.4" stroke-linecap="round" aria-hidden="true"><path d="M6 9l6 6 6-6"/></svg>';

/**
 * The src of this script: its origin is ours (the chat window, API and sockets all live there), and its
 * `link` parameter names the chat link this site's visitors arrive through.
 */
function findScript(): URL | null {
  const current = document.currentScript;
  let src = current instanceof HTMLScriptElement ? current.src : '';
  if (!src) {
    const scripts = document.querySelectorAll<HTMLScriptElement>('script[src]');
    for (let i = scripts.length - 1; i >= 0 && !src; i--) {
      const candidate = scripts[i]?.src ?? '';
      if (/\/widget\.js(?:[?#]|$)/.test(candidate)) src = candidate;
    }
  }
  try {
    return new URL(src);
  } catch {
    return null;
  }
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className: string, parent: Node): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  node.className = className;
  parent.appendChild(node);
  return node;
}

function safeStorage(kind: 'sessionStorage' | 'localStorage', key: string, value?: string): string | null {
  // Storage can throw (disabled cookies, sandboxed pages); we then simply do without it.
  try {
    const store = window[kind];
    if (value !== undefined) store.setItem(key, value);
    return store.getItem(key);
  } catch {
    return null;
  }
}
const TOKEN_KEY = 'parley-yq';

/** Whether the window is open, and the composer's draft: they follow the visitor across the site's pages and tabs. */
interface Kept {
  open: boolean;
  draft: string;
}
function readKept(key: string): Kept {
  let value: Partial<Kept> | null = null;
  try {
    value = JSON.parse(safeStorage('localStorage', key) ?? '{}');
  } catch {
    // Not ours, or damaged: the window starts closed and empty.
  }
  return { open: value?.open === true, draft: typeof value?.draft === 'string' ? value.draft.slice(0, 5000) : '' };
}

type Handler = (data?: unknown) => void;
/** What the embed code's stub queued: each call's arguments, in order. */
type Stub = ((...args: unknown[]) => void) & { q?: ArrayLike<unknown>[] };
declare global {
  interface Window {
    Parley?: Stub;
  }
}

function start(origin: string, link: string | null): void {
  if (document.querySelector(TAG)) return;
  // The chat window words the launcher in the visitor's language (its look); nothing shows before it has.
  let texts = {} as LoaderTexts;

  const host = document.createElement(TAG);
  const root = host.attachShadow({ mode: 'open' });
  // A constructed sheet is not subject to the host page's style-src policy, which may forbid inline styles.
  if ('adoptedStyleSheets' in root && typeof CSSStyleSheet.prototype.replaceSync === 'function') {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(CSS);
    root.adoptedStyleSheets = [sheet];
  } else el('style', '', root).textContent = CSS;

  const nav = el('nav', 'f', root);
  const win = el('div', 'w', root);
  win.setAttribute('role', 'dialog');
  const frame = el('iframe', '', win);
  const invite = el('div', 'i', root);
  const launcher = el('button', 'l', root);
  launcher.type = 'button';
  const icon = el('span', 'ic', launcher);
  const label = el('span', 't', launcher);
  const badge = el('span', 'b', launcher);
  // The newest unread message, beside the launcher of a closed window; a click opens the window.
  const peek = el('button', 'pv', root);
  peek.type = 'button';
  // One key per Parley server (and chat link) on this site: what every page and tab of it shares.
  const keptKey = `parley-ui:${origin}${link ? `:${link}` : ''}`;
  const kept = readKept(keptKey);
  const keep = () => safeStorage('localStorage', keptKey, JSON.stringify({ open, draft }));

  const params = new URLSearchParams({
    embed: '1',
    site: location.origin,
    url: location.href.slice(0, 2048),
    title: document.title.slice(0, 512),
    referrer: document.referrer.slice(0, 2048),
    lang: navigator.language,
  });
  if (link && LINK_PATTERN.test(link)) params.set('link', link);
  // The stored token rides in the fragment, which is never sent to a server or written to its logs.
  const token = safeStorage('localStorage', TOKEN_KEY);
  const fragment = new URLSearchParams();
  if (token && TOKEN_PATTERN.test(token)) fragment.set('yq', token);
  if (kept.draft) fragment.set('draft', kept.draft);
  const hash = fragment.toString();
  frame.src = `${origin}/chat?${params}${hash ? `#${hash}` : ''}`;
  frame.allow = 'clipboard-write';

  let ready = false;
  // `Parley('hide')`: the site keeps the launcher away (its own button opens the window).
  let hidden = false;
  const handlers: Record<string, Handler[]> = {};
  const emit = (event: string, data?: unknown) => {
    for (const fn of handlers[event] ?? []) {
      try {
        fn(data);
      } catch (error) {
        // One broken handler of the site's must not stop the others, nor the widget.
        console.error(error);
      }
    }
  };
  /** Commands for the chat window wait for it to be ready, in the order they were made. */
  const pending: HostMessage[] = [];
  // A window left open on the site's previous page is open here from the first paint, without its animation.
  let open = kept.open;
  let draft = kept.draft;
  win.classList.toggle('st', open);
  let unread = 0;
  let preview = '';
  let look: LauncherLook | null = null;
  let reportedUrl = location.href;
  let drawnIcon = '';

  const post = (message: HostMessage) => {
    // Pinned to our origin: a frame navigated elsewhere never receives what the host page says.
    if (ready) frame.contentWindow?.postMessage(message, origin);
  };

  // Title blink: alternates with whatever title the page itself sets meanwhile.
  let baseTitle = document.title;
  let blinkTimer: ReturnType<typeof setInterval> | undefined;
  const blinkText = () => `(${unread}) ${texts.blink}`;
  const stopBlink = () => {
    if (blinkTimer === undefined) return;
    clearInterval(blinkTimer);
    blinkTimer = undefined;
    if (document.title !== baseTitle && document.title.endsWith(texts.blink)) document.title = baseTitle;
  };
  const startBlink = () => {
    if (blinkTimer !== undefined) return;
    baseTitle = document.title;
    blinkTimer = setInterval(() => {
      const showing = document.title.endsWith(texts.blink);
      if (!showing && document.title !== baseTitle) baseTitle = document.title;
      document.title = showing ? baseTitle : blinkText();
    }, 1000);
  };

  const loadedAt = Date.now();
  let launcherTimer: ReturnType<typeof setTimeout> | undefined;
  const device = () => (isMobile(innerWidth, navigator.userAgent) ? 'mobile' : 'pc');

  const drawIcon = (wanted: string) => {
    // Redrawn only when it changes, so a custom image does not flicker on every badge update.
    if (wanted === drawnIcon) return;
    drawnIcon = wanted;
    if (wanted === 'close' || wanted === 'chat') icon.innerHTML = wanted === 'close' ? CLOSE_ICON : CHAT_ICON;
    else {
      icon.textContent = '';
      const img = el('img', '', icon);
      img.alt = '';
      // A path in the settings is on our server, not on the host page.
      img.src = new URL(wanted, origin).href;
    }
  };

  const render = () => {
    win.classList.toggle('on', open);
    launcher.classList.toggle('open', open);
    launcher.setAttribute('aria-label', open ? texts.close : texts.open);
    launcher.setAttribute('aria-expanded', String(open));
    win.setAttribute('aria-label', look?.title ?? texts.chatTitle);
    const style = look?.launcher[device()];
    // Until the chat window is ready, and while its show delay runs, there is nothing to click.
    const waitMs = style ? style.delaySeconds * 1000 - (Date.now() - loadedAt) : 0;
    clearTimeout(launcherTimer);
    if (waitMs > 0) launcherTimer = setTimeout(render, waitMs);
    launcher.classList.toggle('on', style?.show === true && waitMs <= 0 && !hidden);
    const kind = style?.style ?? 'bubble';
    launcher.classList.toggle('bar', kind === 'bar' && !open);
    launcher.classList.toggle('img', kind === 'image' && !open && style?.image !== '');
    const showText = !open && kind === 'bar' && style !== undefined && style.text !== '';
    label.textContent = showText && style ? style.text : '';
    drawIcon(open ? 'close' : kind !== 'bubble' && style?.image ? style.image : 'chat');
    badge.textContent = unread > 99 ? '99+' : String(unread);
    badge.hidden = open || unread === 0;
    peek.textContent = preview;
    peek.classList.toggle('on', !open && unread > 0 && preview !== '' && launcher.classList.contains('on'));
  };

  /** Lays out what the settings place: colours, side and offsets of the launcher and the window. */
  const place = (current: LauncherLook) => {
    const style = current.launcher[device()];
    host.style.setProperty('--c', safeColor(style.color));
    host.style.setProperty('--b', `${clampPx(style.bottom, 400)}px`);
    host.style.setProperty('--s', `${clampPx(style.side, 400)}px`);
    host.style.setProperty('--ww', `${clampPx(current.width, 1200) || 384}px`);
    host.style.setProperty('--wh', `${clampPx(current.height, 1200) || 660}px`);
    const left = style.position === 'left';
    for (const node of [launcher, win, invite, peek]) node.classList.toggle('left', left);
    drawNav(current.floatNavigation);
  };

  const drawNav = (settings: LauncherLook['floatNavigation']) => {
    nav.textContent = '';
    nav.classList.toggle('on', settings.enabled && settings.items.length > 0);
    nav.classList.toggle('left', settings.side === 'left');
    nav.setAttribute('aria-label', texts.nav);
    host.style.setProperty('--fc', safeColor(settings.color));
    host.style.setProperty('--ft', `${Math.min(Math.max(0, settings.top), 90)}%`);
    for (const item of settings.items) {
      const { href, card } = item;
      const node = href ? el('a', 'fi', nav) : el('button', 'fi', nav);
      node.textContent = item.title;
      node.dataset.type = item.type;
      if (node instanceof HTMLAnchorElement && href) {
        node.href = href;
        if (item.type !== 'phone') {
          node.target = '_blank';
          node.rel = 'noopener noreferrer';
        }
      } else if (node instanceof HTMLButtonElement) {
        node.type = 'button';
        if (item.type === 'chat') node.onclick = () => setOpen(true);
        else if (item.type === 'top') node.onclick = () => scrollTo({ top: 0, behavior: 'smooth' });
        else if (item.type === 'wechat' && card) {
          const pop = el('span', 'fq', node);
          if ('id' in card) pop.textContent = card.id;
          else {
            const img = el('img', '', pop);
            img.alt = item.title;
            img.src = card.image;
          }
          node.setAttribute('aria-expanded', 'false');
          node.onclick = () => {
            const shown = pop.classList.toggle('on');
            node.setAttribute('aria-expanded', String(shown));
          };
        }
      }
    }
  };

  /** `here` is false when another tab of the site opened or closed it: this page's focus stays where it is. */
  const setOpen = (next: boolean, here = true) => {
    const wasOpen = open;
    open = next;
    win.classList.remove('st');
    if (open) preview = '';
    if (here) keep();
    // Drawn first: a hidden window cannot take focus.
    render();
    if (open) {
      invite.classList.remove('on');
      stopBlink();
      // Focus moves into the window at once, so keys typed while it opens land there, not on the page.
      if (here && innerWidth > 480) frame.focus();
    } else if (wasOpen && here) launcher.focus();
    post({ tag: BRIDGE_TAG, type: 'visibility', open, at: Date.now() });
    if (open !== wasOpen) emit(open ? 'open' : 'close');
  };

  // The invitation: after its delay, again every interval up to maxTimes per visit, on its days and hours.
  const INVITED_KEY = 'parley-invited';
  let inviteTimer: ReturnType<typeof setTimeout> | undefined;
  const shownTimes = () => Number(safeStorage('sessionStorage', INVITED_KEY)) || 0;
  const scheduleInvitation = () => {
    clearTimeout(inviteTimer);
    if (!look) return;
    const style = look.invitation[device()];
    const wait = nextInvitationIn(style, shownTimes());
    if (wait === null) return;
    const zone = look.timeZone;
    inviteTimer = setTimeout(() => {
      if (!open && !invite.classList.contains('on') && invitationAllowedAt(style, new Date(), zone)) {
        safeStorage('sessionStorage', INVITED_KEY, String(shownTimes() + 1));
        showInvitation();
      }
      scheduleInvitation();
    }, wait * 1000);
  };

  const showInvitation = () => {
    if (!look) return;
    const style = look.invitation[device()];
    invite.textContent = '';
    const dismiss = el('button', 'x', invite);
    dismiss.type = 'button';
    dismiss.setAttribute('aria-label', style.laterText || texts.later);
    dismiss.textContent = '×';
    const head = el('div', 'ih', invite);
    if (style.image) {
      const img = el('img', 'ii', head);
      img.alt = '';
      img.src = new URL(style.image, origin).href;
    } else el('span', 'ia', head).innerHTML = CHAT_ICON;
    el('strong', '', head).textContent = look.title;
    el('p', '', invite).textContent = style.text;
    const actions = el('div', 'a', invite);
    const later = el('button', 'n', actions);
    later.type = 'button';
    later.textContent = style.laterText || texts.later;
    const accept = el('button', 'y', actions);
    accept.type = 'button';
    accept.textContent = style.acceptText || texts.chat;
    accept.onclick = () => setOpen(true);
    later.onclick = dismiss.onclick = () => invite.classList.remove('on');
    invite.setAttribute('role', 'dialog');
    invite.setAttribute('aria-label', look.title);
    invite.classList.add('on');
  };

  launcher.onclick = () => setOpen(!open);
  peek.onclick = () => setOpen(true);
  addEventListener('storage', (event) => {
    if (event.key !== keptKey) return;
    const now = readKept(keptKey);
    draft = now.draft;
    if (now.open !== open) setOpen(now.open, false);
  });
  document.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape') return;
    if (open) setOpen(false);
    else invite.classList.remove('on');
  });

  addEventListener('message', (event: MessageEvent) => {
    if (event.origin !== origin || event.source !== frame.contentWindow) return;
    const data: unknown = event.data;
    if (typeof data !== 'object' || data === null || !('tag' in data) || data.tag !== BRIDGE_TAG || !('type' in data)) return;
    if (data.type === 'look' && 'look' in data && typeof data.look === 'object' && data.look !== null) {
      const first = look === null;
      look = data.look as LauncherLook;
      texts = look.texts;
      frame.title = texts.chatTitle;
      place(look);
      ready = true;
      // A change of settings redraws everything and restarts the invitation's clock where it stands.
      scheduleInvitation();
      if (first) {
        post({ tag: BRIDGE_TAG, type: 'visibility', open, at: Date.now() });
        if (location.href !== reportedUrl) reportPage();
        for (const message of pending.splice(0)) post(message);
        emit('ready');
      }
    } else if (data.type === 'unread' && 'count' in data && typeof data.count === 'number') {
      const grew = data.count > unread;
      if (data.count !== unread) emit('unread', data.count);
      unread = data.count;
      preview = 'preview' in data && typeof data.preview === 'string' && unread > 0 ? data.preview.slice(0, 200) : '';
      // The badge is for a closed window; the title blinks too when the window is open in a background tab.
      if (unread === 0) stopBlink();
      else if (grew && (!open || document.hidden)) startBlink();
    } else if (data.type === 'token' && 'token' in data && typeof data.token === 'string' && TOKEN_PATTERN.test(data.token)) {
      safeStorage('localStorage', TOKEN_KEY, data.token);
    } else if (data.type === 'draft' && 'text' in data && typeof data.text === 'string') {
      draft = data.text.slice(0, 5000);
      keep();
    } else if (data.type === 'close') {
      setOpen(false);
    } else if (data.type === 'message' && 'message' in data) {
      emit('message', data.message);
    }
    render();
  });

  // Page changes, single-page-app navigation included; the title often changes just after the URL.
  let pageTimer: ReturnType<typeof setTimeout> | undefined;
  const reportPage = () => {
    clearTimeout(pageTimer);
    pageTimer = setTimeout(() => {
      if (!ready || location.href === reportedUrl) return;
      reportedUrl = location.href;
      post({ tag: BRIDGE_TAG, type: 'page', url: reportedUrl.slice(0, 2048), title: document.title.slice(0, 512) });
    }, 300);
  };
  for (const method of ['pushState', 'replaceState'] as const) {
    const original = history[method];
    history[method] = function (this: History, ...args: Parameters<History['pushState']>) {
      const result = original.apply(this, args);
      reportPage();
      return result;
    };
  }
  addEventListener('popstate', reportPage);
  addEventListener('hashchange', reportPage);

  // Turning a phone or resizing a window can switch between the pc and mobile settings.
  let resizeTimer: ReturnType<typeof setTimeout> | undefined;
  addEventListener('resize', () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => {
      if (look) place(look);
      render();
    }, 200);
  });

  render();
  document.body.appendChild(host);

  // CONTRACT §13: Parley(command, …args), the only global; calls the stub queued before now run first, in order.
  const api: Stub = (command, arg, fn) => {
    if (command === 'on') {
      if (typeof arg === 'string' && typeof fn === 'function') {
        handlers[arg] = [...(handlers[arg] ?? []), fn as Handler];
        // Ready already: a handler added late still hears it.
        if (arg === 'ready' && ready) (fn as Handler)();
      }
    } else if (command === 'open' || command === 'close' || command === 'toggle') {
      const next = command === 'toggle' ? !open : command === 'open';
      if (next !== open) setOpen(next);
    } else if (command === 'show' || command === 'hide') {
      hidden = command === 'hide';
      render();
    } else if (FRAME_COMMANDS.includes(command as never)) {
      // Forgotten here at once: a page that reloads before the chat window answers starts anonymous too.
      if (command === 'reset') safeStorage('localStorage', TOKEN_KEY, '');
      const message: HostMessage = { tag: BRIDGE_TAG, type: 'command', command: command as FrameCommand, data: arg };
      if (ready) post(message);
      else pending.push(message);
    }
  };
  const queued = window.Parley?.q ?? [];
  window.Parley = api;
  for (const args of Array.from(queued)) api(...Array.from(args));
}

const script = findScript();
if (script) {
  const begin = () => start(script.origin, script.searchParams.get('link'));
  if (document.body) begin();
  else document.addEventListener('DOMContentLoaded', begin);
}
