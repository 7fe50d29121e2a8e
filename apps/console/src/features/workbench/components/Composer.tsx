import { FileAddOutlined, PictureOutlined, SendOutlined, SmileOutlined, ThunderboltOutlined } from '@ant-design/icons';
import { MAX_MESSAGE_LENGTH, type MessageType } from '@parley/protocol';
import { Button, Input, Popover, Tooltip } from 'antd';
import type { TextAreaRef } from 'antd/es/input/TextArea';
import { type KeyboardEvent, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call } from '../../../lib/api';
import { toastError } from '../../../lib/feedback';
import { uploadFile } from '../api';
import { useAssist } from '../assist';
import { EMOJI } from '../quickReplies';
import { REPEAT_MARKER, useMonitoring } from '../store';
import { AssistBar } from './AssistBar';
import { QuickRepliesPicker } from './QuickReplies';

interface Props {
  token: string;
  disabled: boolean;
  disabledReason: string;
  /** A WeChat user: WeChat's typing indicator is shown to them while the agent types. */
  wechat?: boolean;
  /** `assist`: the pair whose suggested answer was inserted into this reply (agent assist). */
  onSend(text: string, type: MessageType, assist?: number): void;
}

/** How often, at most, the server hears that the agent still types to a WeChat user (it asks WeChat every 12 s). */
const TYPING_EVERY_MS = 5000;

/**
 * Tells the server while the agent types to a WeChat user (and when the draft is cleared), for WeChat's
 * typing indicator; a failure only means no indicator.
 */
function useWeChatTyping(token: string, on: boolean) {
  // When the server was last told of typing, and for which conversation (another one starts afresh).
  const last = useRef({ token: '', at: 0 });
  return (draft: string) => {
    if (!on) return;
    const now = Date.now();
    const typing = draft.trim() !== '';
    const since = last.current.token === token ? last.current.at : 0;
    if (typing && now - since < TYPING_EVERY_MS) return;
    if (!typing && since === 0) return;
    last.current = { token, at: typing ? now : 0 };
    call('POST /api/wechat/typing', { YQToken: token, typing }).catch(() => undefined);
  };
}

/** Largest upload the server takes (it checks again, with the sniffed type). */
const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;

export function Composer({ token, disabled, disabledReason, wechat = false, onSend }: Props) {
  const { t } = useTranslation();
  const [draft, setDraft] = useState('');
  const [emojiOpen, setEmojiOpen] = useState(false);
  const [quickOpen, setQuickOpen] = useState(false);
  const [uploading, setUploading] = useState(false);
  const input = useRef<TextAreaRef>(null);
  const imagePicker = useRef<HTMLInputElement>(null);
  const filePicker = useRef<HTMLInputElement>(null);
  const sendMessage = useMonitoring((state) => state.sendMessage);
  const drafts = useRef(new Map<string, string>());
  const offer = useAssist((state) => state.offers[token]);
  const typed = useWeChatTyping(token, wechat && !disabled);

  // Each conversation keeps its own unsent draft.
  useEffect(() => {
    setDraft(drafts.current.get(token) ?? '');
    return () => {
      drafts.current.set(token, input.current?.resizableTextArea?.textArea.value ?? '');
    };
  }, [token]);

  // A quick reply chosen anywhere lands in the draft (the marker only makes a repeat noticeable).
  const seen = useRef(sendMessage);
  useEffect(() => {
    if (sendMessage === seen.current) return;
    seen.current = sendMessage;
    const text = sendMessage.replaceAll(REPEAT_MARKER, '');
    if (!text) return;
    setDraft(text);
    input.current?.focus();
  }, [sendMessage]);

  const insert = (text: string) => {
    const area = input.current?.resizableTextArea?.textArea;
    const start = area?.selectionStart ?? draft.length;
    const end = area?.selectionEnd ?? draft.length;
    setDraft(draft.slice(0, start) + text + draft.slice(end));
    requestAnimationFrame(() => {
      area?.focus();
      area?.setSelectionRange(start + text.length, start + text.length);
    });
  };

  const submit = () => {
    const text = draft.trim();
    if (!text || disabled) return;
    onSend(text, 'text', offer?.inserted ? offer.pairId : undefined);
    // Answered: the suggestion for the question before is stale now.
    if (offer) useAssist.getState().drop(token);
    setDraft('');
  };

  /** The suggested answer becomes the draft, to edit before sending. */
  const insertSuggestion = () => {
    if (!offer || disabled) return;
    setDraft(offer.answer);
    useAssist.getState().markInserted(token);
    requestAnimationFrame(() => input.current?.focus());
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    // Tab in an empty reply takes the suggested answer; otherwise Tab moves focus as usual.
    if (event.key === 'Tab' && !event.shiftKey && offer && !offer.inserted && draft.trim() === '') {
      event.preventDefault();
      insertSuggestion();
      return;
    }
    // Enter sends; Shift+Enter is a new line; Enter that confirms an input-method word does neither.
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      submit();
    }
  };

  const upload = async (file: File | undefined, type: MessageType) => {
    if (!file) return;
    if (file.size > MAX_UPLOAD_BYTES) {
      toastError(t('workbench.composer.tooLarge', { size: '10 MB' }));
      return;
    }
    setUploading(true);
    try {
      const stored = await uploadFile(file);
      const kind: MessageType = type === 'image' && stored.type.startsWith('image/') ? 'image' : 'file';
      // The file's own name rides in the fragment: the stored name is random.
      onSend(kind === 'file' ? `${stored.url}#${encodeURIComponent(stored.name)}` : stored.url, kind);
    } catch (error) {
      toastError(error instanceof Error && error.message ? error.message : t('workbench.errors.upload'));
    } finally {
      setUploading(false);
    }
  };

  return (
    <div className={`wb-composer${disabled ? ' disabled' : ''}`}>
      {offer && !disabled && <AssistBar offer={offer} onInsert={insertSuggestion} onDismiss={() => useAssist.getState().drop(token)} />}
      <div className="wb-tools">
        <Popover
          open={emojiOpen && !disabled}
          onOpenChange={setEmojiOpen}
          trigger="click"
          placement="topLeft"
          content={
            <div className="wb-emoji" role="listbox" aria-label={t('workbench.composer.emoji')}>
              {EMOJI.map((emoji) => (
                <button
                  type="button"
                  key={emoji}
                  role="option"
                  aria-selected={false}
                  onClick={() => {
                    insert(emoji);
                    setEmojiOpen(false);
                  }}
                >
                  {emoji}
                </button>
              ))}
            </div>
          }
        >
          <Tooltip title={t('workbench.composer.emoji')}>
            <Button type="text" icon={<SmileOutlined />} disabled={disabled} aria-label={t('workbench.composer.emoji')} />
          </Tooltip>
        </Popover>
        <Tooltip title={t('workbench.composer.image')}>
          <Button
            type="text"
            icon={<PictureOutlined />}
            disabled={disabled || uploading}
            onClick={() => imagePicker.current?.click()}
            aria-label={t('workbench.composer.image')}
          />
        </Tooltip>
        <Tooltip title={t('workbench.composer.file')}>
          <Button
            type="text"
            icon={<FileAddOutlined />}
            disabled={disabled || uploading}
            onClick={() => filePicker.current?.click()}
            aria-label={t('workbench.composer.file')}
          />
        </Tooltip>
        <Popover
          open={quickOpen && !disabled}
          onOpenChange={setQuickOpen}
          trigger="click"
          placement="topLeft"
          // On a narrow screen the picker slides left to stay whole rather than run off the edge.
          align={{ overflow: { adjustX: 1, adjustY: 1, shiftX: true } }}
          destroyOnHidden
          content={
            <QuickRepliesPicker
              onPick={(reply) => {
                setQuickOpen(false);
                insert(reply.content);
              }}
              onClose={() => {
                setQuickOpen(false);
                input.current?.focus();
              }}
            />
          }
        >
          <Button type="text" icon={<ThunderboltOutlined />} disabled={disabled} data-testid="wb-quick-open">
            <span className="wb-tool-label">{t('workbench.quick.title')}</span>
          </Button>
        </Popover>
        <input
          ref={imagePicker}
          type="file"
          accept="image/*"
          hidden
          data-testid="wb-image-input"
          onChange={(event) => {
            void upload(event.target.files?.[0], 'image');
            event.target.value = '';
          }}
        />
        <input
          ref={filePicker}
          type="file"
          hidden
          data-testid="wb-file-input"
          onChange={(event) => {
            void upload(event.target.files?.[0], 'file');
            event.target.value = '';
          }}
        />
      </div>
      <Input.TextArea
        ref={input}
        value={draft}
        onChange={(event) => {
          setDraft(event.target.value);
          typed(event.target.value);
        }}
        onKeyDown={onKeyDown}
        onPaste={(event) => {
          // A screenshot pasted into the reply is sent as an image, as chat tools do.
          const image = Array.from(event.clipboardData.files).find((file) => file.type.startsWith('image/'));
          if (!image || disabled) return;
          event.preventDefault();
          void upload(image, 'image');
        }}
        disabled={disabled}
        placeholder={disabled ? disabledReason : t('workbench.composer.placeholder')}
        aria-label={t('workbench.composer.placeholder')}
        autoSize={{ minRows: 2, maxRows: 6 }}
        maxLength={MAX_MESSAGE_LENGTH}
        variant="borderless"
        data-testid="wb-input"
      />
      <div className="wb-send-line">
        <span className="wb-muted wb-send-hint">{t('workbench.composer.hint')}</span>
        <Button
          type="primary"
          icon={<SendOutlined />}
          onClick={submit}
          disabled={disabled || draft.trim() === ''}
          loading={uploading}
          data-testid="wb-send"
        >
          {t('workbench.composer.send')}
        </Button>
      </div>
    </div>
  );
}
