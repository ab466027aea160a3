import { useState } from 'react';
import { ApiError, del, put } from '../api';
import { useI18n } from '../i18n';
import type { Chat, ChatLabel } from '../models';
import { useLabels } from '../session';

// A chat's labels as chips: in the list (read only) and in the conversation's header, where whoever
// may see the chat adds one from the account's labels and takes one off. A chip shows the label as
// the account has it now (renamed, recoloured live by label.* events), and a deleted label's chip goes.

/** The chat's labels, with each one's current name and colour. */
export function useChatLabels(chat: Chat): ChatLabel[] {
  const { labelById, labelsLoaded } = useLabels();
  return chat.labels.flatMap((l) => {
    const now = labelById.get(l.id);
    if (now) return [{ id: l.id, name: now.name, color: now.color }];
    return labelsLoaded ? [] : [l];
  });
}

export function LabelChip(props: { label: ChatLabel; onRemove?: () => void; busy?: boolean }) {
  const { t } = useI18n();
  const { label } = props;
  return (
    <span
      className="label-chip"
      data-label-id={label.id}
      style={{ ['--label-color' as string]: label.color }}
    >
      <span className="label-dot" aria-hidden="true" />
      {label.name}
      {props.onRemove && (
        <button
          type="button"
          className="label-remove"
          aria-label={t('labels.remove', { name: label.name })}
          disabled={props.busy}
          onClick={props.onRemove}
        >
          ×
        </button>
      )}
    </span>
  );
}

/** Chips of a list item. */
export function ChatItemLabels(props: { chat: Chat }) {
  const labels = useChatLabels(props.chat);
  if (labels.length === 0) return null;
  return (
    <span className="chat-item-labels">
      {labels.map((l) => (
        <LabelChip key={l.id} label={l} />
      ))}
    </span>
  );
}

/** The conversation header's labels: chips with a remove button, and a picker to add one. */
export function ChatLabelsEditor(props: { chat: Chat; onChat: (chat: Chat) => void }) {
  const { t } = useI18n();
  const { labels } = useLabels();
  const shown = useChatLabels(props.chat);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const on = new Set(shown.map((l) => l.id));
  const available = labels.filter((l) => !on.has(l.id));

  const change = async (labelId: string, add: boolean) => {
    setBusy(true);
    setError(null);
    try {
      const path = `/api/chats/${props.chat.id}/labels/${labelId}`;
      props.onChat(add ? await put<Chat>(path, undefined) : await del<Chat>(path));
    } catch (err) {
      setError(err instanceof ApiError && err.status !== 0 ? err.message : t('common.error'));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="convo-labels" role="group" aria-label={t('labels.ofChat')}>
      {shown.map((l) => (
        <LabelChip key={l.id} label={l} busy={busy} onRemove={() => void change(l.id, false)} />
      ))}
      {available.length > 0 && (
        <select
          className="label-add"
          aria-label={t('labels.add')}
          value=""
          disabled={busy}
          onChange={(e) => {
            if (e.target.value) void change(e.target.value, true);
          }}
        >
          <option value="">{t('labels.addShort')}</option>
          {available.map((l) => (
            <option key={l.id} value={l.id}>
              {l.name}
            </option>
          ))}
        </select>
      )}
      {error && (
        <span className="error" role="alert">
          {error}
        </span>
      )}
    </div>
  );
}
