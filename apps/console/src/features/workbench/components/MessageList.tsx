import { ApiOutlined, ExclamationCircleFilled, LoadingOutlined, RobotOutlined } from '@ant-design/icons';
import { type Note, tipText } from '@parley/protocol';
import { Avatar, Button, Dropdown, Spin, Tag } from 'antd';
import { Fragment, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatDate, formatTime } from '../../../lib/format';
import { type ChatMessage, type Conversation, canWithdraw, firstSeq } from '../model';
import { DeliveryNote, DeliveryState } from './Delivery';
import { MessageBody } from './MessageBody';
import { NoteRow, placeNotes } from './Notes';

interface Props {
  token: string;
  conversation: Conversation | undefined;
  me: string;
  visitorName: string;
  typing: string;
  onLoadOlder(beforeSeq: number): Promise<void>;
  onWithdraw(message: ChatMessage): void;
  onRetry(message: ChatMessage): void;
  /** Internal notes, each drawn after the message it followed; agents' only. */
  notes?: Note[] | undefined;
}

function dayOf(iso: string): string {
  return iso.slice(0, 10);
}

export function MessageList({ token, conversation, me, visitorName, typing, onLoadOlder, onWithdraw, onRetry, notes = [] }: Props) {
  const { t, i18n } = useTranslation();
  const lang = i18n.language === 'en' ? 'en' : 'zh';
  const scroller = useRef<HTMLDivElement>(null);
  const [loadingOlder, setLoadingOlder] = useState(false);
  const restore = useRef<number | null>(null);
  const stick = useRef(true);
  const shownToken = useRef(token);
  const [now, setNow] = useState(() => Date.now());
  const messages = conversation?.messages ?? [];
  const last = messages.at(-1);

  // The withdraw action is offered only within its window; re-check it now and then.
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 15_000);
    return () => clearInterval(timer);
  }, []);

  // biome-ignore lint/correctness/useExhaustiveDependencies: the newest message and the typing line decide the scroll
  useLayoutEffect(() => {
    const element = scroller.current;
    if (!element) return;
    // Another conversation opens at its newest message.
    if (shownToken.current !== token) {
      shownToken.current = token;
      stick.current = true;
      restore.current = null;
    }
    if (restore.current !== null) {
      // Older messages were put above: keep the ones being read where they were.
      element.scrollTop = element.scrollHeight - restore.current;
      restore.current = null;
      return;
    }
    if (stick.current || (last?.role === 'service' && last.serviceID === me && last.pending)) element.scrollTop = element.scrollHeight;
  }, [last?.onlyID, last?.seq, typing, messages.length, notes.length, token]);

  const onScroll = () => {
    const element = scroller.current;
    if (!element) return;
    stick.current = element.scrollHeight - element.scrollTop - element.clientHeight < 80;
    if (element.scrollTop < 60 && conversation?.hasMore && conversation.loaded && !loadingOlder) {
      const before = firstSeq(messages);
      if (before <= 1) return;
      setLoadingOlder(true);
      restore.current = element.scrollHeight - element.scrollTop;
      onLoadOlder(before)
        .catch(() => {
          restore.current = null;
        })
        .finally(() => setLoadingOlder(false));
    }
  };

  const time = (iso: string) => formatTime(iso, { language: lang });
  const day = (iso: string) => formatDate(iso, { language: lang });
  const placed = placeNotes(
    notes,
    messages.map((message) => message.seq),
    Boolean(conversation?.loaded && !conversation.hasMore),
  );
  const noteRows = (list: Note[] | undefined) => list?.map((note) => <NoteRow key={note.onlyID} note={note} time={time(note.time)} />);

  return (
    <div className="wb-messages" ref={scroller} onScroll={onScroll} data-testid="wb-messages">
      {!conversation?.loaded && (
        <div className="wb-center">
          <Spin />
        </div>
      )}
      {conversation?.loaded && (loadingOlder || conversation.hasMore) && messages.length > 0 && firstSeq(messages) > 1 && (
        <div className="wb-older">{loadingOlder ? <LoadingOutlined /> : t('workbench.message.scrollForMore')}</div>
      )}
      {conversation?.loaded && !conversation.hasMore && messages.length > 0 && (
        <div className="wb-older">{t('workbench.message.start')}</div>
      )}
      {conversation?.loaded && messages.length === 0 && <div className="wb-center wb-muted">{t('workbench.message.empty')}</div>}
      {noteRows(placed.top)}
      {messages.map((message, index) => {
        const previous = messages[index - 1];
        const separator = !previous || dayOf(previous.time) !== dayOf(message.time);
        return (
          <Fragment key={message.onlyID}>
            {separator && (
              <div className="wb-day">
                <span>{day(message.time)}</span>
              </div>
            )}
            <MessageRow
              message={message}
              me={me}
              visitorName={visitorName}
              time={time(message.time)}
              lang={lang}
              withdrawable={canWithdraw(message, me, now)}
              onWithdraw={onWithdraw}
              onRetry={onRetry}
            />
            {noteRows(placed.after.get(index))}
          </Fragment>
        );
      })}
      {typing && (
        <div className="wb-row them wb-typing" data-testid="wb-typing">
          <Avatar size={32} className="wb-avatar visitor">
            {visitorName.slice(0, 1)}
          </Avatar>
          <div className="wb-bubble-wrap">
            <div className="wb-meta">{t('workbench.message.typing')}</div>
            <div className="wb-bubble draft">{typing}</div>
          </div>
        </div>
      )}
    </div>
  );
}

interface RowProps {
  message: ChatMessage;
  me: string;
  visitorName: string;
  time: string;
  lang: 'zh' | 'en';
  withdrawable: boolean;
  onWithdraw(message: ChatMessage): void;
  onRetry(message: ChatMessage): void;
}

function MessageRow({ message, me, visitorName, time, lang, withdrawable, onWithdraw, onRetry }: RowProps) {
  const { t } = useTranslation();
  if (message.role === 'tip') {
    return (
      <div className="wb-tip" data-testid="wb-tip">
        <span>{tipText(message.msg, message.nickname, lang)}</span>
        <span className="wb-tip-time">{time}</span>
      </div>
    );
  }
  const mine = message.role === 'service' && message.serviceID === me;
  const agentSide = message.role === 'service' || message.role === 'robot';
  if (message.withdrawn) {
    return (
      <div className="wb-tip withdrawn">
        {mine ? t('workbench.message.withdrawnMine') : t('workbench.message.withdrawnBy', { name: message.nickname || visitorName })}
      </div>
    );
  }
  const name = message.role === 'user' ? message.nickname || visitorName : message.nickname;
  const bubble = (
    <div className={`wb-bubble${message.type !== 'text' ? ' media' : ''}`} data-testid="wb-bubble" data-role={message.role}>
      <MessageBody message={message} />
    </div>
  );
  return (
    <div className={`wb-row ${agentSide ? 'me' : 'them'}`} data-seq={message.seq}>
      <Avatar size={32} className={`wb-avatar ${message.role}`} icon={message.role === 'robot' ? <RobotOutlined /> : undefined}>
        {message.role === 'robot' ? null : name.slice(0, 1).toUpperCase()}
      </Avatar>
      <div className="wb-bubble-wrap">
        <div className="wb-meta">
          <span className="wb-name">{name}</span>
          {message.via ? (
            // Sent by a program with an API token (a site's own bot): said, so nobody takes it for a person.
            <Tag icon={<ApiOutlined />} className="wb-via" data-testid="wb-via">
              {t('workbench.message.via', { name: message.via })}
            </Tag>
          ) : null}
          <span>{time}</span>
        </div>
        <div className="wb-bubble-line">
          {withdrawable ? (
            <Dropdown
              trigger={['contextMenu']}
              menu={{ items: [{ key: 'withdraw', label: t('workbench.message.withdraw'), onClick: () => onWithdraw(message) }] }}
            >
              {bubble}
            </Dropdown>
          ) : (
            bubble
          )}
          {message.pending && !message.failed && <LoadingOutlined className="wb-state" aria-label={t('workbench.message.sending')} />}
          {message.failed && (
            <Button
              type="text"
              size="small"
              danger
              className="wb-state"
              icon={<ExclamationCircleFilled />}
              title={t('workbench.message.retry')}
              aria-label={t('workbench.message.retry')}
              onClick={() => onRetry(message)}
            />
          )}
          <DeliveryState message={message} />
        </div>
        <DeliveryNote message={message} />
        {withdrawable && <div className="wb-hint">{t('workbench.message.withdrawHint')}</div>}
      </div>
    </div>
  );
}
