import { io, type Socket } from 'socket.io-client';
import type { Envelope, EventName, SessionReady } from '../models';

// The console's connection to the Socket.IO gateway, following the contract's connection rules:
// after every `connect` it re-emits user_logged_in, user_join_team, user_start_watch_chats and, with a
// conversation open, user_start_attendance; when Socket.IO did not recover the session (a drop longer
// than the recovery window, a server restart, a server-side disconnect) it tells the console to reload
// what it shows through REST. Events may arrive twice (a gateway node taking over from another sends
// again what the other may not have sent): each seq is handed to the handlers once.

export type ConnState = 'connecting' | 'online' | 'reconnecting';

type EventHandler = (envelope: Envelope) => void;

/** Who is in a conversation (`presence.update`, the gateway's own, not an event of the log). */
export interface Presence {
  chatId: string;
  viewers: { userId: string; typing: boolean }[];
}

/** How many recent seqs are remembered to drop repeats; a repeat comes within seconds. */
const SEEN_MAX = 5_000;

export class Gateway {
  private readonly socket: Socket;
  private state: ConnState = 'connecting';
  private teamIds: string[] = [];
  private watched: string[] = [];
  private attendance: string | null = null;
  private readonly stateListeners = new Set<(s: ConnState) => void>();
  private readonly resyncListeners = new Set<() => void>();
  private readonly handlers = new Map<string, Set<EventHandler>>();
  private readonly presenceListeners = new Set<(p: Presence) => void>();
  private presenceOf: string | null = null;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private closed = false;
  private readonly seen = new Set<number>();
  /** Where to resume the event log from (`session.ready`): every event committed before it is at or below. */
  lastSeq: number | null = null;

  constructor(
    url: string,
    path: string,
    private readonly userId: string,
    private readonly onUnauthorized: () => void,
  ) {
    this.socket = io(url, {
      path,
      withCredentials: true,
      transports: ['websocket', 'polling'],
      reconnectionDelay: 500,
      reconnectionDelayMax: 5000,
    });
    this.socket.on('connect', () => this.onConnect());
    this.socket.on('disconnect', (reason) => {
      this.setState('reconnecting');
      // A disconnect decided by the server is not retried by Socket.IO itself.
      if (reason === 'io server disconnect') this.retry(1000);
    });
    this.socket.on('connect_error', (err) => {
      this.setState('reconnecting');
      if (err.message === 'unauthorized') {
        this.onUnauthorized();
        return;
      }
      if (!this.socket.active) this.retry(2000);
    });
    this.socket.on('session.ready', (ready: SessionReady) => {
      if (typeof ready?.seq === 'number') this.lastSeq = ready.seq;
    });
    this.socket.on('presence.update', (p: Presence) => {
      for (const fn of this.presenceListeners) fn(p);
    });
    this.socket.onAny((event: string, payload: unknown) => {
      if (event === 'session.ready' || event === 'presence.update') return;
      if (!payload || typeof payload !== 'object') return;
      const envelope = payload as Envelope;
      if (typeof envelope.seq === 'number') {
        if (this.seen.has(envelope.seq)) return;
        this.seen.add(envelope.seq);
        // A Set iterates in insertion order: the first is the oldest.
        if (this.seen.size > SEEN_MAX) this.seen.delete(this.seen.values().next().value as number);
        if (this.lastSeq === null || envelope.seq > this.lastSeq) this.lastSeq = envelope.seq;
      }
      for (const h of this.handlers.get(event) ?? []) h(envelope);
    });
  }

  private retry(delayMs: number) {
    if (this.closed || this.retryTimer) return;
    this.retryTimer = setTimeout(
      () => {
        this.retryTimer = null;
        if (!this.closed && !this.socket.connected) this.socket.connect();
      },
      delayMs + Math.random() * 500,
    );
  }

  private onConnect() {
    const recovered = this.socket.recovered;
    this.setState('online');
    void this.resubscribe().then(() => {
      if (!recovered) for (const fn of this.resyncListeners) fn();
    });
  }

  private emit(event: string, arg: unknown): Promise<unknown> {
    return this.socket
      .timeout(10_000)
      .emitWithAck(event, arg)
      .catch(() => null);
  }

  private async resubscribe() {
    await this.emit('user_logged_in', this.userId);
    await this.emit('user_join_team', this.teamIds);
    await this.emit('user_start_watch_chats', this.watched);
    if (this.attendance) await this.emit('user_start_attendance', this.attendance);
    if (this.attendance && this.presenceOf === this.attendance) await this.watchPresenceNow();
  }

  private setState(s: ConnState) {
    if (s === this.state) return;
    this.state = s;
    for (const fn of this.stateListeners) fn(s);
  }

  getState(): ConnState {
    return this.state;
  }

  joinTeams(ids: string[]) {
    this.teamIds = [...ids];
    if (this.socket.connected) void this.emit('user_join_team', this.teamIds);
  }

  watchChats(ids: string[]) {
    const next = [...new Set(ids)].sort();
    if (next.join() === this.watched.join()) return;
    this.watched = next;
    if (this.socket.connected) void this.emit('user_start_watch_chats', this.watched);
  }

  /**
   * Opens a conversation's message stream (null: none, which tells the others this user left it);
   * resolves once the server acknowledged it.
   */
  async attend(chatId: string | null): Promise<void> {
    this.attendance = chatId;
    if (!this.socket.connected) return;
    if (!chatId) {
      await this.emit('user_stop_attendance', null);
      return;
    }
    await this.emit('user_start_attendance', chatId);
    if (this.presenceOf === chatId) await this.watchPresenceNow();
  }

  /**
   * Follows who views and types in a conversation (null: stop), once this connection attends it
   * (the gateway answers presence only about the conversation attended).
   */
  async watchPresence(chatId: string | null): Promise<void> {
    this.presenceOf = chatId;
    if (this.socket.connected && (chatId === null || chatId === this.attendance))
      await this.watchPresenceNow();
  }

  private async watchPresenceNow() {
    const answer = (await this.emit('user_watch_presence', this.presenceOf)) as
      (Presence & { ok: boolean }) | null;
    if (answer?.ok && answer.chatId === this.presenceOf && Array.isArray(answer.viewers)) {
      for (const fn of this.presenceListeners) fn({ chatId: answer.chatId, viewers: answer.viewers });
    }
  }

  /** This user types (or stopped typing) in the conversation they attend; `note`: a private note. */
  typing(chatId: string, typing: boolean, note = false) {
    if (this.socket.connected) void this.emit('user_typing', { chatId, typing, ...(note ? { note } : {}) });
  }

  onPresence(fn: (p: Presence) => void): () => void {
    this.presenceListeners.add(fn);
    return () => this.presenceListeners.delete(fn);
  }

  /** Calls `handler` with each envelope of the event (once per seq). */
  on<E extends EventName>(event: E, handler: (envelope: Envelope<E>) => void): () => void {
    let set = this.handlers.get(event);
    if (!set) this.handlers.set(event, (set = new Set()));
    // Envelopes are handed out by their `event`, so this handler only ever gets an Envelope<E>.
    const h = handler as EventHandler;
    set.add(h);
    return () => set.delete(h);
  }

  onState(fn: (s: ConnState) => void): () => void {
    this.stateListeners.add(fn);
    return () => this.stateListeners.delete(fn);
  }

  /** Called after a connection whose session was not recovered: reload through REST. */
  onResync(fn: () => void): () => void {
    this.resyncListeners.add(fn);
    return () => this.resyncListeners.delete(fn);
  }

  close() {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.socket.disconnect();
  }
}
