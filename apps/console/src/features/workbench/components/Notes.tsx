import { LockOutlined, SendOutlined } from '@ant-design/icons';
import { type AgentPeer, MAX_MESSAGE_LENGTH, type Note } from '@parley/protocol';
import { Button, Mentions, Segmented } from 'antd';
import { type KeyboardEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import './notes.css';

/** A note's text with its `@username` mentions set apart. */
function withMentions(text: string) {
  return text.split(/((?:^|(?<=\s))@[\p{L}\p{N}_.@-]+)/u).map((part, index) =>
    index % 2 === 1 ? (
      // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one fixed text
      <strong key={index} className="wb-note-mention">
        {part}
      </strong>
    ) : (
      part
    ),
  );
}

/** An internal note among the messages: agents' only, drawn apart from what the visitor reads. */
export function NoteRow({ note, time }: { note: Note; time: string }) {
  const { t } = useTranslation();
  return (
    <div className="wb-note" data-testid="wb-note">
      <div className="wb-note-head">
        <LockOutlined aria-hidden />
        <span className="wb-note-label">{t('workbench.note.label')}</span>
        <span>{note.nickname}</span>
        <span className="wb-note-time">{time}</span>
      </div>
      <div className="wb-note-body">{withMentions(note.msg)}</div>
    </div>
  );
}

/** Where the notes go among the messages: after the last message they followed (`afterSeq`). */
export function placeNotes(notes: Note[], seqs: number[], complete: boolean): { top: Note[]; after: Map<number, Note[]> } {
  const top: Note[] = [];
  const after = new Map<number, Note[]>();
  for (const note of notes) {
    let at = -1;
    seqs.forEach((seq, index) => {
      if (seq > 0 && seq <= note.afterSeq) at = index;
    });
    // A note older than the first message held shows once that message's older ones are all here.
    if (at < 0) {
      if (complete || seqs.length === 0) top.push(note);
    } else after.set(at, [...(after.get(at) ?? []), note]);
  }
  return { top, after };
}

/** Reply to the visitor, or write an internal note only agents read. */
export function ComposerMode({ note, onChange }: { note: boolean; onChange(note: boolean): void }) {
  const { t } = useTranslation();
  return (
    <Segmented
      size="small"
      className="wb-mode"
      value={note ? 'note' : 'reply'}
      onChange={(value) => onChange(value === 'note')}
      options={[
        { value: 'reply', label: t('workbench.note.reply') },
        { value: 'note', label: <span data-testid="wb-note-mode">{t('workbench.note.mode')}</span> },
      ]}
    />
  );
}

/** The note composer: `@` offers the agents (login name and nickname); Enter sends, Shift+Enter is a new line. */
export function NoteComposer({ agents, me, onNote }: { agents: AgentPeer[]; me: string; onNote(text: string): Promise<boolean> }) {
  const { t } = useTranslation();
  const [draft, setDraft] = useState('');
  const [picking, setPicking] = useState(false);
  const [sending, setSending] = useState(false);

  const submit = async () => {
    const text = draft.trim();
    if (!text || sending) return;
    setSending(true);
    if (await onNote(text)) setDraft('');
    setSending(false);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    // While the agent list is open Enter picks an agent; otherwise it sends, as the reply box does.
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing && !picking) {
      event.preventDefault();
      void submit();
    }
  };

  const options = agents
    .filter((agent) => agent.uuid !== me)
    .map((agent) => ({
      key: agent.uuid,
      value: agent.username,
      search: `${agent.username} ${agent.nickname}`.toLowerCase(),
      label: (
        <span className="wb-mention-option" data-testid="wb-mention-option">
          <span>{agent.nickname}</span>
          <span className="wb-muted">@{agent.username}</span>
        </span>
      ),
    }));

  return (
    <div className="wb-composer wb-note-composer" data-testid="wb-note-composer">
      <Mentions
        value={draft}
        onChange={setDraft}
        onKeyDown={onKeyDown}
        onSearch={() => setPicking(true)}
        onSelect={() => setPicking(false)}
        onBlur={() => setPicking(false)}
        options={options}
        filterOption={(input, option) => (option as { search?: string }).search?.includes(input.toLowerCase()) ?? false}
        notFoundContent={t('workbench.note.noAgent')}
        placeholder={t('workbench.note.placeholder')}
        aria-label={t('workbench.note.placeholder')}
        autoSize={{ minRows: 2, maxRows: 6 }}
        maxLength={MAX_MESSAGE_LENGTH}
        variant="borderless"
        placement="top"
        data-testid="wb-note-input"
      />
      <div className="wb-send-line">
        <span className="wb-muted wb-send-hint">{t('workbench.note.hint')}</span>
        <Button
          type="primary"
          className="wb-note-send"
          icon={<SendOutlined />}
          onClick={() => void submit()}
          disabled={draft.trim() === ''}
          loading={sending}
          data-testid="wb-note-send"
        >
          {t('workbench.note.send')}
        </Button>
      </div>
    </div>
  );
}
