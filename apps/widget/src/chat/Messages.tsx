import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef } from 'preact/hooks';
import type { ChatState, Person } from './client';
import { clock, dayStamp, farApart } from './format';
import { Alert, Bot, FileIcon, Headset } from './icons';
import type { Lang, Translate } from './lib/i18n';
import { fileName, linkify, safeUrl } from './lib/linkify';
import { type ChatItem, firstSeq } from './lib/merge';
import { shownToVisitor, tipText } from './lib/tips';
import { formatBytes } from './lib/validate';

/** Message text as text nodes and anchors: content never reaches the page as markup. */
export function RichText({ text }: { text: string }) {
  return (
    <>
      {linkify(text).map((segment, index) =>
        segment.kind === 'link' ? (
          <a key={index} href={segment.href} target="_blank" rel="noopener noreferrer nofollow">
            {segment.text}
          </a>
        ) : (
          segment.text
        ),
      )}
    </>
  );
}

export function Avatar({ person, robot, size = 32 }: { person: Person | null; robot?: boolean; size?: number }) {
  const src = person?.avatar ? safeUrl(person.avatar) : null;
  // Without a picture a named agent shows the first letter of the name, as people recognise it faster.
  const initial = !robot && person?.name ? Array.from(person.name.trim())[0]?.toUpperCase() : undefined;
  return (
    <span class="av" style={{ width: `${size}px`, height: `${size}px`, fontSize: `${size}px` }}>
      {src ? <img src={src} alt="" /> : initial ? <b>{initial}</b> : robot ? <Bot size={size * 0.55} /> : <Headset size={size * 0.55} />}
    </span>
  );
}

function Content({ item, t }: { item: ChatItem; t: Translate }) {
  const mine = item.role === 'user';
  if (item.type === 'image') {
    const src = item.preview ?? safeUrl(item.msg);
    if (src) {
      const link = safeUrl(item.msg);
      const image = <img class="pic" src={src} alt={t('openImage')} loading="lazy" />;
      return link ? (
        <a class="pic-link" href={link} target="_blank" rel="noopener noreferrer" title={t('openImage')}>
          {image}
        </a>
      ) : (
        image
      );
    }
  }
  if (item.type === 'file') {
    const href = safeUrl(item.msg);
    const name = href ? fileName(item.msg) : item.msg;
    const body = (
      <>
        <span class="file-icon">
          <FileIcon size={22} />
        </span>
        <span class="file-text">
          <span class="file-name">{name}</span>
          <span class="file-sub">{href ? t('download') : item.status === 'sending' ? t('uploading') : formatBytes(item.size ?? 0)}</span>
        </span>
      </>
    );
    return href ? (
      <a class={`file${mine ? ' mine' : ''}`} href={href} target="_blank" rel="noopener noreferrer" download={name}>
        {body}
      </a>
    ) : (
      <span class={`file${mine ? ' mine' : ''}`}>{body}</span>
    );
  }
  return <RichText text={item.msg} />;
}

interface ListProps {
  state: ChatState;
  lang: Lang;
  t: Translate;
  welcome: string;
  title: string;
  onRetry: (onlyID: string) => void;
  onEarlier: () => void;
  /** Sends a question the robot suggested, as if typed. */
  onAsk: (question: string) => void;
  /** Drawn under the message with this seq (the rating card). */
  after: { seq: number; node: ComponentChildren } | null;
}

/**
 * Keeps the newest message in view unless the visitor has scrolled up to read older ones; when older
 * messages are put above, keeps what the visitor was reading where it was.
 */
function useStickToBottom(dependency: unknown, oldest: number) {
  const ref = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  const seen = useRef({ oldest, height: 0 });
  useLayoutEffect(() => {
    const node = ref.current;
    if (!node) return;
    if (pinned.current) node.scrollTop = node.scrollHeight;
    else if (oldest < seen.current.oldest) node.scrollTop += node.scrollHeight - seen.current.height;
    seen.current = { oldest, height: node.scrollHeight };
  }, [dependency, oldest]);
  const onScroll = () => {
    const node = ref.current;
    if (node) pinned.current = node.scrollHeight - node.scrollTop - node.clientHeight < 80;
  };
  const onLoad = () => {
    const node = ref.current;
    if (node && pinned.current) node.scrollTop = node.scrollHeight;
  };
  return { ref, onScroll, onLoad };
}

export function MessageList({ state, lang, t, welcome, title, onRetry, onEarlier, onAsk, after }: ListProps) {
  const oldest = firstSeq(state.items);
  const { ref, onScroll, onLoad } = useStickToBottom(
    `${state.items.length}:${state.items.at(-1)?.status}:${after?.seq}:${state.rating?.done}`,
    oldest,
  );
  const rows: ComponentChildren[] = [];
  if (oldest > 1) {
    rows.push(
      <div class="earlier" key="earlier">
        <button type="button" class="link" disabled={state.loadingEarlier} onClick={onEarlier}>
          {state.loadingEarlier ? t('loading') : t('earlier')}
        </button>
      </div>,
    );
  }
  if (welcome && oldest <= 1) {
    rows.push(
      <div class="row them first" key="welcome">
        <Avatar person={null} />
        <div class="col">
          <div class="who">{title}</div>
          <div class="bubble">
            <RichText text={welcome} />
          </div>
        </div>
      </div>,
    );
  }
  let previous: ChatItem | undefined;
  let placed = false;
  const attach = () => {
    if (!after || placed || (previous?.seq ?? 0) !== after.seq) return;
    rows.push(<div key="after">{after.node}</div>);
    placed = true;
  };
  attach();
  for (const item of state.items.filter(shownToVisitor)) {
    if (farApart(previous?.time, item.time)) {
      rows.push(
        <div class="stamp" key={`t${item.onlyID}`}>
          {dayStamp(item.time, lang, t)}
        </div>,
      );
    }
    if (item.withdrawn) {
      rows.push(
        <div class="tip" key={item.onlyID}>
          {t('withdrawn')}
        </div>,
      );
    } else if (item.role === 'tip') {
      rows.push(
        <div class="tip" key={item.onlyID}>
          <RichText text={tipText(item.msg, item.nickname, lang)} />
        </div>,
      );
    } else {
      const mine = item.role === 'user';
      const grouped =
        previous !== undefined &&
        !previous.withdrawn &&
        previous.role === item.role &&
        previous.nickname === item.nickname &&
        !farApart(previous.time, item.time);
      const robot = item.role === 'robot';
      const person: Person | null = robot ? state.robot : state.agent && state.agent.name === item.nickname ? state.agent : null;
      const media = item.type === 'image' ? ' media' : '';
      rows.push(
        <div class={`row ${mine ? 'me' : 'them'}${grouped ? '' : ' first'}`} key={item.onlyID} onLoadCapture={onLoad}>
          {!mine && (grouped ? <span class="av-space" /> : <Avatar person={person} robot={robot} />)}
          <div class="col">
            {!mine && !grouped && <div class="who">{item.nickname || (robot ? t('robotName') : t('agent'))}</div>}
            <div class={`bubble${media}${item.type === 'file' ? ' bare' : ''}`} title={clock(item.time, lang)}>
              <Content item={item} t={t} />
            </div>
            {robot && item.suggestions && item.suggestions.length > 0 && state.conversation === 'robot' && (
              <fieldset class="chips">
                <legend class="chips-label">{t('suggestions')}</legend>
                {item.suggestions.map((question) => (
                  <button type="button" class="chip" key={question} onClick={() => onAsk(question)}>
                    {question}
                  </button>
                ))}
              </fieldset>
            )}
            {mine && item.status === 'sending' && (
              <div class="state">{item.type !== 'text' && !safeUrl(item.msg) ? t('uploading') : t('sending')}</div>
            )}
            {mine && item.status === 'failed' && (
              <div class="state bad">
                <Alert size={14} />
                <span title={item.error}>{item.error ? `${t('failed')}: ${item.error}` : t('failed')}</span>
                <button type="button" class="link" onClick={() => onRetry(item.onlyID)}>
                  {t('retrySend')}
                </button>
              </div>
            )}
          </div>
        </div>,
      );
    }
    previous = item;
    attach();
  }
  if (after && !placed) rows.push(<div key="after">{after.node}</div>);
  return (
    <div class="list" ref={ref} onScroll={onScroll} role="log" aria-live="polite">
      {rows}
    </div>
  );
}
