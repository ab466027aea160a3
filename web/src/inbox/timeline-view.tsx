import { useEffect, useMemo, useState, type ReactNode } from 'react';
import { useI18n } from '../i18n';
import type { Note } from '../models';
import { ActivityItem } from './activity';
import type { Conversation } from './conversation-view';
import { NoteItem } from './notes';
import { mergeTimeline, useTimelineExtras, type TimelineItem } from './timeline';

/** What the agent's conversation adds to the messages: notes and activity lines, and the note mode. */
export interface AgentTimeline {
  timeline: TimelineItem[];
  renderExtra: (item: Exclude<TimelineItem, { type: 'message' }>) => ReactNode;
  /** A note this user just wrote, before its event arrives. */
  putNote(note: Note): void;
  /** Whether the box under the conversation writes a reply to the customer or a private note. */
  mode: 'reply' | 'note';
  setMode(mode: 'reply' | 'note'): void;
}

/** The agent's timeline of a conversation: its messages with its notes and activity, in time order. */
export function useAgentTimeline(chatId: string, convo: Conversation): AgentTimeline {
  const extras = useTimelineExtras(chatId);
  const [mode, setMode] = useState<'reply' | 'note'>('reply');
  useEffect(() => setMode('reply'), [chatId]);
  const { notes, activity, putNote, dropNote } = extras;
  const timeline = useMemo(
    () => mergeTimeline(convo.messages, { notes, activity }, convo.hasOlder, convo.hasNewer),
    [convo.messages, notes, activity, convo.hasOlder, convo.hasNewer],
  );
  const renderExtra = (item: Exclude<TimelineItem, { type: 'message' }>) =>
    item.type === 'note' ? (
      <NoteItem note={item.note} onChanged={putNote} onDeleted={dropNote} />
    ) : (
      <ActivityItem line={item.line} />
    );
  return { timeline, renderExtra, putNote, mode, setMode };
}

/** Reply to the customer, or write a private note: the two buttons above the box. */
export function ReplyModes(props: { mode: 'reply' | 'note'; setMode(mode: 'reply' | 'note'): void }) {
  const { t } = useI18n();
  return (
    <div className="reply-modes" role="group" aria-label={t('notes.modes')}>
      <button
        type="button"
        className="btn small ghost"
        aria-pressed={props.mode === 'reply'}
        onClick={() => props.setMode('reply')}
      >
        {t('notes.modeReply')}
      </button>
      <button
        type="button"
        className="btn small ghost note-mode"
        aria-pressed={props.mode === 'note'}
        onClick={() => props.setMode('note')}
      >
        {t('notes.modeNote')}
      </button>
    </div>
  );
}
