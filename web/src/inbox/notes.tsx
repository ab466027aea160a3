import { useLayoutEffect, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { ApiError, del, patch, post } from '../api';
import { useI18n } from '../i18n';
import type { MentionableUser, Note } from '../models';
import { useDirectory, useMe } from '../session';
import { sendOnEnter } from './conversation-view';
import { useShortTime } from './format';
import { mentionAt, MentionList, useMentionPicker } from './mention-picker';

// Private notes in the conversation: the note box (with `@` mentions) and a note in the timeline,
// styled apart from messages, edited or deleted in place by its author. A note never reaches the
// customer: it is not a message (its own API, its own list).

const MAX_NOTE = 4096;

/** The users whose `@Name` is still in the text, of those picked (or mentioned before). */
const stillMentioned = (text: string, users: ReadonlyMap<string, string>) =>
  [...users].filter(([, name]) => text.includes(`@${name}`)).map(([id]) => id);

const errorText = (t: ReturnType<typeof useI18n>['t'], err: unknown) =>
  err instanceof ApiError && err.status !== 0 ? err.message : t('common.error');

/**
 * A note's text box with the `@` picker: shared by the note box and a note's edit. `mentions` holds
 * the users picked (id → name); the caller reads who is still named in the text when it saves.
 */
function NoteText(props: {
  chatId: string;
  text: string;
  setText(text: string): void;
  mentions: Map<string, string>;
  onSubmit(): void;
  onEscape?: () => void;
  label: string;
  autoFocus?: boolean;
}) {
  const { t } = useI18n();
  const box = useRef<HTMLTextAreaElement>(null);
  const [caret, setCaret] = useState(props.text.length);
  // Where the cursor goes once a picked name is in the text: set as the text is drawn, before any
  // later key reaches the box (a frame later, quick typing would land before it).
  const pendingCaret = useRef<number | null>(null);
  useLayoutEffect(() => {
    const at = pendingCaret.current;
    if (at === null || !box.current) return;
    pendingCaret.current = null;
    box.current.setSelectionRange(at, at);
  }, [props.text]);
  const pick = (user: MentionableUser, at = mentionAt(props.text, caret)) => {
    if (!at) return;
    const inserted = `@${user.name} `;
    const next = props.text.slice(0, at.start) + inserted + props.text.slice(caret);
    props.mentions.set(user.id, user.name);
    props.setText(next);
    const to = at.start + inserted.length;
    setCaret(to);
    pendingCaret.current = to;
  };
  const picker = useMentionPicker(props.chatId, props.text, caret, (u, at) => pick(u, at));
  return (
    <>
      <MentionList picker={picker} onPick={(u) => pick(u)} />
      <textarea
        ref={box}
        rows={2}
        value={props.text}
        aria-label={props.label}
        placeholder={t('notes.placeholder')}
        maxLength={MAX_NOTE}
        autoFocus={props.autoFocus}
        onChange={(e) => {
          props.setText(e.target.value);
          setCaret(e.target.selectionStart);
        }}
        onSelect={(e) => setCaret(e.currentTarget.selectionStart)}
        onKeyDown={(e) => {
          if (picker.onKeyDown(e)) return;
          if (e.key === 'Escape' && props.onEscape) {
            e.preventDefault();
            props.onEscape();
            return;
          }
          sendOnEnter(props.onSubmit)(e);
        }}
        {...picker.inputProps}
      />
    </>
  );
}

/** The note box under the conversation: Enter saves the note, `@` mentions a colleague. */
export function NoteComposer(props: { chatId: string; onWritten: (note: Note) => void }) {
  const { t } = useI18n();
  const [text, setText] = useState('');
  const [mentions] = useState(() => new Map<string, string>());
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const save = async (e?: FormEvent) => {
    e?.preventDefault();
    const body = text.trim();
    if (!body || busy) return;
    setBusy(true);
    setError(null);
    try {
      const note = await post<Note>(`/api/chats/${props.chatId}/notes`, {
        text: body,
        mentions: stillMentioned(body, mentions),
      });
      props.onWritten(note);
      setText('');
      mentions.clear();
    } catch (err) {
      setError(errorText(t, err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="composer note-composer" onSubmit={(e) => void save(e)} data-testid="note-composer">
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <p className="note-hint">{t('notes.hint')}</p>
      <div className="composer-row">
        <NoteText
          chatId={props.chatId}
          text={text}
          setText={setText}
          mentions={mentions}
          onSubmit={() => void save()}
          label={t('notes.box')}
        />
        <button type="submit" className="btn note" disabled={busy || !text.trim()}>
          {t('notes.save')}
        </button>
      </div>
    </form>
  );
}

/** The note's text with each mentioned user's `@Name` marked. */
function NoteBody(props: { note: Note }) {
  const { users } = useDirectory();
  const names = props.note.mentions
    .map((id) => users.find((u) => u.id === id)?.name)
    .filter((n): n is string => !!n)
    .sort((a, b) => b.length - a.length);
  if (names.length === 0) return <span className="msg-text">{props.note.text}</span>;
  const escaped = names.map((n) => `@${n}`.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const parts = props.note.text.split(new RegExp(`(${escaped.join('|')})`));
  const out: ReactNode[] = parts.map((part, i) =>
    i % 2 === 1 ? (
      <mark key={i} className="mention">
        {part}
      </mark>
    ) : (
      part
    ),
  );
  return <span className="msg-text">{out}</span>;
}

/** A note in the timeline: marked as private, its author, and edit/delete for the author. */
export function NoteItem(props: {
  note: Note;
  onChanged: (note: Note) => void;
  onDeleted: (id: string) => void;
}) {
  const { t, time } = useI18n();
  const short = useShortTime();
  const { me } = useMe();
  const { users } = useDirectory();
  const { note } = props;
  const [editing, setEditing] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [mentions] = useState(
    () => new Map(note.mentions.map((id) => [id, users.find((u) => u.id === id)?.name ?? id])),
  );
  const mine = note.userId === me.user.id;
  const author =
    note.userId === me.user.id
      ? t('chat.you')
      : (users.find((u) => u.id === note.userId)?.name ?? t('notes.someone'));
  const path = `/api/chats/${note.chatId}/notes/${note.id}`;

  const save = async () => {
    const text = editing?.trim();
    if (!text) return;
    setError(null);
    try {
      props.onChanged(await patch<Note>(path, { text, mentions: stillMentioned(text, mentions) }));
      setEditing(null);
    } catch (err) {
      setError(errorText(t, err));
    }
  };
  const remove = async () => {
    setError(null);
    try {
      await del(path);
      props.onDeleted(note.id);
    } catch (err) {
      setError(errorText(t, err));
      setConfirming(false);
    }
  };

  return (
    <li className="msg note" data-note-id={note.id} data-testid="note">
      <span className="msg-author">
        <span className="note-badge">{t('notes.badge')}</span> {author}
      </span>
      {editing === null ? (
        <NoteBody note={note} />
      ) : (
        <div className="note-edit">
          <NoteText
            chatId={note.chatId}
            text={editing}
            setText={setEditing}
            mentions={mentions}
            onSubmit={() => void save()}
            onEscape={() => setEditing(null)}
            label={t('notes.editBox')}
            autoFocus
          />
        </div>
      )}
      {error && (
        <span className="msg-error" role="alert">
          {error}
        </span>
      )}
      <span className="msg-foot">
        {note.updatedAt !== note.createdAt && <span className="muted">{t('notes.edited')}</span>}
        <time dateTime={note.createdAt} title={time(note.createdAt)}>
          {short(note.createdAt)}
        </time>
      </span>
      {mine && editing === null && (
        <span className="note-actions">
          {confirming ? (
            <>
              <span>{t('notes.deleteConfirm')}</span>
              <button type="button" className="btn small danger" onClick={() => void remove()}>
                {t('notes.delete')}
              </button>
              <button type="button" className="btn small ghost" onClick={() => setConfirming(false)}>
                {t('common.cancel')}
              </button>
            </>
          ) : (
            <>
              <button type="button" className="btn small ghost" onClick={() => setEditing(note.text)}>
                {t('notes.edit')}
              </button>
              <button type="button" className="btn small ghost" onClick={() => setConfirming(true)}>
                {t('notes.delete')}
              </button>
            </>
          )}
        </span>
      )}
    </li>
  );
}
