import { useCallback, useEffect, useRef, useState } from 'react';
import { get, qs } from '../api';
import type { ActivityLine, ActivityPage, Chat, Message, Note, NotePage } from '../models';
import { useDirectory, useGateway, useMe } from '../session';

// What the agent's timeline shows besides messages: the chat's private notes and its activity lines
// (captured, transferred, moved, closed — read from the event log), each through its own operation,
// kept live by the gateway, and merged with the messages by time.

/** The newest notes and activity lines read; older ones are not shown past the oldest loaded message. */
const EXTRAS_PAGE = 200;

/** The events after which the chat's activity has a new line. */
const ACTIVITY_EVENTS = [
  'chat.capture',
  'chat.transfer',
  'chat.queue',
  'chat.close',
  'chat.snoozed',
  'chat.unsnoozed',
] as const;

export type TimelineItem =
  | { type: 'message'; at: string; key: string; message: Message }
  | { type: 'note'; at: string; key: string; note: Note }
  | { type: 'activity'; at: string; key: string; line: ActivityLine };

export interface TimelineExtras {
  notes: Note[];
  activity: ActivityLine[];
  /** A note this user wrote, edited or deleted, before its event arrives. */
  putNote(note: Note): void;
  dropNote(id: string): void;
}

const byNewest = <T extends { id: string }>(items: T[], at: (x: T) => string) =>
  [...items].sort((a, b) => at(b).localeCompare(at(a)) || b.id.localeCompare(a.id));

/** The chat's notes and activity, read when it opens and followed live. */
export function useTimelineExtras(chatId: string | null): TimelineExtras {
  const { gateway } = useGateway();
  const { me, can } = useMe();
  const { myTeamIds } = useDirectory();
  // Whether this user still sees the chat after a change (a transfer may take it away): only then
  // is its activity read again.
  const stillMine = useRef<(c: Chat) => boolean>(() => false);
  stillMine.current = (c: Chat) =>
    can('chats:read_all') || c.userId === me.user.id || myTeamIds.includes(c.teamId);
  const [notes, setNotes] = useState<Note[]>([]);
  const [activity, setActivity] = useState<ActivityLine[]>([]);
  const current = useRef(chatId);
  current.current = chatId;

  const loadNotes = useCallback(async (id: string) => {
    const page = await get<NotePage>(`/api/chats/${id}/notes${qs({ limit: EXTRAS_PAGE })}`).catch(() => null);
    if (page && current.current === id) setNotes(page.notes);
  }, []);
  const loadActivity = useCallback(async (id: string) => {
    const page = await get<ActivityPage>(`/api/chats/${id}/activity${qs({ limit: EXTRAS_PAGE })}`).catch(
      () => null,
    );
    if (page && current.current === id) setActivity(page.activity);
  }, []);

  useEffect(() => {
    setNotes([]);
    setActivity([]);
    if (!chatId) return;
    void loadNotes(chatId);
    void loadActivity(chatId);
  }, [chatId, loadNotes, loadActivity]);

  const putNote = useCallback(
    (note: Note) =>
      setNotes((prev) =>
        note.chatId !== current.current
          ? prev
          : byNewest(
              [
                ...prev.filter((n) => n.id !== note.id),
                // A late event never undoes a newer edit.
                prev.find((n) => n.id === note.id && n.updatedAt > note.updatedAt) ?? note,
              ],
              (n) => n.createdAt,
            ),
      ),
    [],
  );
  const dropNote = useCallback((id: string) => setNotes((prev) => prev.filter((n) => n.id !== id)), []);

  useEffect(() => {
    if (!gateway) return;
    const offs = [
      gateway.on('note.new', (e) => putNote(e.data.note)),
      gateway.on('note.update', (e) => putNote(e.data.note)),
      gateway.on('note.delete', (e) => {
        if (e.data.chatId === current.current) dropNote(e.data.noteId);
      }),
      // The line is the event's, as the server reads it: the page is read again.
      ...ACTIVITY_EVENTS.map((name) =>
        gateway.on(name, (e) => {
          const chat = e.data.chat;
          if (chat.id === current.current && stillMine.current(chat)) void loadActivity(chat.id);
        }),
      ),
      gateway.onResync(() => {
        if (!current.current) return;
        void loadNotes(current.current);
        void loadActivity(current.current);
      }),
    ];
    return () => offs.forEach((off) => off());
  }, [gateway, putNote, dropNote, loadNotes, loadActivity]);

  return { notes, activity, putNote, dropNote };
}

/**
 * Messages, notes and activity in time order (oldest first). While older messages are still to load,
 * notes and lines older than the oldest loaded message wait for them, and likewise newer ones while
 * newer messages are (a conversation opened at a search result), so nothing shows out of place.
 */
export function mergeTimeline(
  messages: Message[],
  extras: Pick<TimelineExtras, 'notes' | 'activity'>,
  hasOlderMessages: boolean,
  hasNewerMessages = false,
): TimelineItem[] {
  const items: TimelineItem[] = messages.map((m) => ({
    type: 'message',
    at: m.createdAt,
    key: `m-${m.id}`,
    message: m,
  }));
  const first = messages[0]?.createdAt;
  const last = messages.at(-1)?.createdAt;
  const shown = (at: string) =>
    (!hasOlderMessages || (first !== undefined && at >= first)) &&
    (!hasNewerMessages || (last !== undefined && at <= last));
  for (const note of extras.notes) {
    if (shown(note.createdAt)) items.push({ type: 'note', at: note.createdAt, key: `n-${note.id}`, note });
  }
  for (const line of extras.activity) {
    if (shown(line.at)) items.push({ type: 'activity', at: line.at, key: `a-${line.id}`, line });
  }
  // Stable: messages keep their order among equal times.
  return items
    .map((item, i) => ({ item, i }))
    .sort((a, b) => a.item.at.localeCompare(b.item.at) || a.i - b.i)
    .map(({ item }) => item);
}
