import type { WidgetSettings } from '@parley/protocol';
import { useRef, useState } from 'preact/hooks';
import { Clip, Send, Smile } from './icons';
import { EMOJI } from './lib/emoji';
import type { Translate } from './lib/i18n';
import { acceptAttribute, checkFile, formatBytes } from './lib/validate';

interface Props {
  t: Translate;
  settings: WidgetSettings;
  onSend: (text: string) => void;
  onFile: (file: File) => void;
  onDraft: (text: string) => void;
  /** The draft the visitor left on the site's previous page, and where each change of it is kept. */
  initial?: string | undefined;
  onKeep?: ((text: string) => void) | undefined;
  onProblem: (message: string) => void;
}

const MAX_HEIGHT = 120;

export function Composer({ t, settings, onSend, onFile, onDraft, initial, onKeep, onProblem }: Props) {
  const [draft, setDraft] = useState(initial ?? '');
  const [emojiOpen, setEmojiOpen] = useState(false);
  const input = useRef<HTMLTextAreaElement>(null);
  const picker = useRef<HTMLInputElement>(null);

  const resize = () => {
    const node = input.current;
    if (!node) return;
    node.style.height = 'auto';
    node.style.height = `${Math.min(MAX_HEIGHT, node.scrollHeight)}px`;
  };
  const change = (text: string) => {
    setDraft(text);
    onDraft(text);
    onKeep?.(text);
    requestAnimationFrame(resize);
  };
  const submit = () => {
    if (draft.trim() === '') return;
    onSend(draft);
    setDraft('');
    onKeep?.('');
    setEmojiOpen(false);
    requestAnimationFrame(resize);
    input.current?.focus();
  };
  const insert = (emoji: string) => {
    const node = input.current;
    const start = node?.selectionStart ?? draft.length;
    const end = node?.selectionEnd ?? draft.length;
    change(draft.slice(0, start) + emoji + draft.slice(end));
    requestAnimationFrame(() => {
      node?.focus();
      node?.setSelectionRange(start + emoji.length, start + emoji.length);
    });
  };
  const pick = (files: FileList | null | undefined) => {
    for (const file of Array.from(files ?? [])) {
      const problem = checkFile(file, settings.upload);
      if (problem === 'tooLarge') onProblem(t('fileTooLarge', { size: formatBytes(settings.upload.maxBytes) }));
      else if (problem === 'type') onProblem(t('fileType'));
      else if (problem === 'empty') onProblem(t('fileEmpty'));
      else onFile(file);
    }
  };

  return (
    <div class="composer">
      {emojiOpen && (
        <div class="emoji" role="listbox" aria-label={t('emoji')}>
          {EMOJI.map((emoji) => (
            <button type="button" key={emoji} onClick={() => insert(emoji)} aria-label={emoji}>
              {emoji}
            </button>
          ))}
        </div>
      )}
      <div class="box">
        <textarea
          ref={input}
          rows={1}
          value={draft}
          placeholder={t('placeholder')}
          aria-label={t('placeholder')}
          maxLength={settings.maxLength}
          onInput={(event) => change(event.currentTarget.value)}
          onKeyDown={(event) => {
            // Enter sends; Shift+Enter is a new line; an IME composing Chinese keeps its Enter.
            if (event.key === 'Enter' && !event.shiftKey && !event.isComposing && event.keyCode !== 229) {
              event.preventDefault();
              submit();
            }
          }}
          onPaste={(event) => {
            const files = event.clipboardData?.files;
            if (files && files.length > 0 && settings.upload.enabled) {
              event.preventDefault();
              pick(files);
            }
          }}
        />
        <div class="tools">
          <button
            type="button"
            class={`tool${emojiOpen ? ' active' : ''}`}
            title={t('emoji')}
            aria-label={t('emoji')}
            aria-expanded={emojiOpen}
            onClick={() => setEmojiOpen(!emojiOpen)}
          >
            <Smile />
          </button>
          {settings.upload.enabled && (
            <>
              <button type="button" class="tool" title={t('attach')} aria-label={t('attach')} onClick={() => picker.current?.click()}>
                <Clip />
              </button>
              <input
                ref={picker}
                type="file"
                hidden
                accept={acceptAttribute(settings.upload)}
                onChange={(event) => {
                  pick(event.currentTarget.files);
                  event.currentTarget.value = '';
                }}
              />
            </>
          )}
          <button type="button" class="send" title={t('send')} aria-label={t('send')} disabled={draft.trim() === ''} onClick={submit}>
            <Send size={18} />
          </button>
        </div>
      </div>
    </div>
  );
}
