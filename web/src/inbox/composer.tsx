import { useEffect, useRef, useState, type FormEvent } from 'react';
import { ApiError, fileToBase64, get, getBlob, post } from '../api';
import { useI18n } from '../i18n';
import { useDrafts } from '../session';
import type { CannedResponse, Message, RenderedCanned } from '../models';
import { ATTACH_ACCEPT, mediaType, refusedAs } from './attachments';
import { CannedList, useCannedPicker } from './canned-picker';
import { sendOnEnter } from './conversation-view';
import { useTypingSignal } from './presence';

/**
 * The reply box of a conversation: text kept as the chat's draft (saved on the server, followed by
 * the agent's other tabs), an optional attachment sent as base64 media, Enter to send. `/` opens the
 * canned responses: the one picked replaces the text, its variables filled, and its file is attached;
 * its use is counted once the message is sent.
 */
export function Composer(props: { chatId: string; onSent: (m: Message) => void }) {
  const { t } = useI18n();
  const { drafts, setDraft } = useDrafts();
  const { chatId, onSent } = props;
  const text = drafts.get(chatId) ?? '';
  const [file, setFile] = useState<File | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const textarea = useRef<HTMLTextAreaElement>(null);
  // Canned responses inserted since the last send: counted when it goes.
  const used = useRef(new Set<string>());
  useEffect(() => used.current.clear(), [chatId]);

  const insert = async (item: CannedResponse) => {
    setError(null);
    try {
      const rendered = await get<RenderedCanned>(`/api/canned-responses/${item.id}/render?chatId=${chatId}`);
      setDraft(chatId, rendered.text);
      if (rendered.attachment) {
        const { filename, mimetype } = rendered.attachment;
        const blob = await getBlob(`/api/canned-responses/${item.id}/attachment`);
        setFile(new File([blob], filename ?? 'file', { type: mimetype }));
      }
      used.current.add(item.id);
      textarea.current?.focus();
    } catch (err) {
      setError(err instanceof ApiError && err.status !== 0 ? err.message : t('common.error'));
    }
  };
  const picker = useCannedPicker(text, (item) => void insert(item));
  const typing = useTypingSignal(chatId);

  const send = async (e?: FormEvent) => {
    e?.preventDefault();
    if (busy) return;
    const body = text.trim();
    if (!body && !file) return;
    setBusy(true);
    setError(null);
    try {
      const payload = file
        ? {
            media: {
              mimetype: mediaType(file) ?? file.type,
              base64: await fileToBase64(file),
              filename: file.name,
              ...(body ? { caption: body } : {}),
            },
          }
        : { text: body };
      const message = await post<Message>(`/api/chats/${chatId}/messages`, payload);
      typing.stopped();
      onSent(message);
      for (const id of used.current) void post(`/api/canned-responses/${id}/use`).catch(() => undefined);
      used.current.clear();
      setDraft(chatId, '', { now: true });
      setFile(null);
      if (fileInput.current) fileInput.current.value = '';
      textarea.current?.focus();
    } catch (err) {
      setError(err instanceof ApiError && err.status !== 0 ? err.message : t('common.error'));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="composer" onSubmit={(e) => void send(e)}>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {file && (
        <div className="composer-attachment">
          <span>📎 {file.name}</span>
          <button
            type="button"
            className="btn small ghost"
            aria-label={t('chat.removeAttachment')}
            title={t('chat.removeAttachment')}
            onClick={() => {
              setFile(null);
              if (fileInput.current) fileInput.current.value = '';
            }}
          >
            ✕
          </button>
        </div>
      )}
      <p id="composer-hint" className="sr-only">
        {t('chat.composerHint')}
      </p>
      <CannedList picker={picker} onPick={(item) => void insert(item)} />
      <div className="composer-row">
        <input
          ref={fileInput}
          type="file"
          hidden
          data-testid="attach-input"
          accept={ATTACH_ACCEPT}
          onChange={(e) => {
            const picked = e.target.files?.[0] ?? null;
            const refused = picked && refusedAs(picked);
            setError(refused ? t('chat.fileUnsupported', { ext: refused }) : null);
            setFile(refused ? null : picked);
            if (refused) e.target.value = '';
          }}
        />
        <button
          type="button"
          className="btn icon"
          aria-label={t('chat.attach')}
          title={t('chat.attach')}
          onClick={() => fileInput.current?.click()}
        >
          <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true">
            <path
              d="M16.5 6.5 8.6 14.4a1.5 1.5 0 0 0 2.1 2.1l7.9-7.9a3 3 0 0 0-4.2-4.2l-8 8a4.5 4.5 0 0 0 6.4 6.4l7.2-7.2"
              fill="none"
              stroke="currentColor"
              strokeWidth="1.8"
              strokeLinecap="round"
            />
          </svg>
        </button>
        <textarea
          ref={textarea}
          rows={1}
          value={text}
          aria-label={t('chat.composer')}
          aria-describedby="composer-hint"
          placeholder={t('chat.composerPlaceholder')}
          onChange={(e) => {
            setDraft(chatId, e.target.value);
            if (e.target.value.trim()) typing.typed();
            else typing.stopped();
          }}
          onKeyDown={(e) => picker.onKeyDown(e) || sendOnEnter(() => void send())(e)}
          {...picker.inputProps}
          maxLength={4096}
        />
        <button type="submit" className="btn primary" disabled={busy || (!text.trim() && !file)}>
          {t('chat.send')}
        </button>
      </div>
    </form>
  );
}
