// The console's tabs in this browser, told apart so that one of them speaks for all: the leader, held
// through a Web Lock (the next tab in line takes over when it closes), plays the sounds and shows the
// desktop notifications. Each tab tells the others on a BroadcastChannel which conversation it shows
// and whether it is in view (visible and focused), so the leader stays quiet about a conversation the
// agent is looking at, and shows a desktop notification only when no tab is in view.
//
// A leader that closes hands over through the lock, which takes a moment: what arrives in between
// would be announced by no tab. So a tab that is not leading holds what it would have announced for a
// while (`speak`), the leader tells the others what it announced, and a tab that takes over announces
// what it holds that nobody did.

const LOCK = 'atende.alerts.leader';
const CHANNEL = 'atende.tabs';
/** A view not heard of for this long is a tab that went away without saying so. */
const VIEW_TTL_MS = 60_000;
/** How long a tab that is not leading holds an announcement, in case the leader was leaving. */
const HOLD_MS = 10_000;

interface View {
  chatId: string | null;
  inView: boolean;
  at: number;
}

type Message =
  | { type: 'view'; tab: string; chatId: string | null; inView: boolean }
  | { type: 'hello'; tab: string }
  | { type: 'bye'; tab: string }
  | { type: 'prefs'; tab: string }
  | { type: 'spoke'; tab: string; id: string };

export class Tabs {
  readonly id = Math.random().toString(36).slice(2);
  private leading = false;
  private release: (() => void) | null = null;
  private readonly channel: BroadcastChannel | null;
  private readonly views = new Map<string, View>();
  private chatId: string | null = null;
  private readonly prefsListeners = new Set<() => void>();
  private readonly cleanups: (() => void)[] = [];
  /** Announcements this tab held while not leading, by id. */
  private readonly held = new Map<string, { at: number; speak: () => void }>();
  /** Announcements the leader made, by id: when, so that one heard after is not held. */
  private readonly spoken = new Map<string, number>();

  constructor() {
    const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined;
    if (locks) {
      const held = new Promise<void>((resolve) => (this.release = resolve));
      void locks
        .request(LOCK, () => {
          this.leading = true;
          this.takeOver();
          return held;
        })
        .catch(() => undefined);
    } else {
      // Without Web Locks every tab speaks (a repeated sound rather than none).
      this.leading = true;
    }
    this.channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel(CHANNEL) : null;
    if (this.channel) this.channel.onmessage = (e: MessageEvent<Message>) => this.receive(e.data);
    const announce = () => this.announce();
    const bye = () => this.post({ type: 'bye', tab: this.id });
    document.addEventListener('visibilitychange', announce);
    window.addEventListener('focus', announce);
    window.addEventListener('blur', announce);
    window.addEventListener('pagehide', bye);
    this.cleanups.push(() => {
      document.removeEventListener('visibilitychange', announce);
      window.removeEventListener('focus', announce);
      window.removeEventListener('blur', announce);
      window.removeEventListener('pagehide', bye);
    });
    this.post({ type: 'hello', tab: this.id });
    this.announce();
  }

  /**
   * Announces a moment (`speak`: the sound, a desktop notification) once per browser: now, when this
   * tab leads; otherwise held, and announced only if this tab takes over before `HOLD_MS` and the
   * leader did not announce it. `id` names the moment itself (a conversation's arrival, one message).
   */
  speak(id: string, speak: () => void) {
    const now = Date.now();
    if (this.leading) {
      speak();
      this.post({ type: 'spoke', tab: this.id, id });
      return;
    }
    this.forget(now);
    if (this.spoken.has(id)) return;
    this.held.set(id, { at: now, speak });
  }

  /** The conversation this tab shows (null: none). */
  show(chatId: string | null) {
    this.chatId = chatId;
    this.announce();
  }

  /** Whether a tab in view (this one included) shows the conversation. */
  showing(chatId: string): boolean {
    return this.fresh().some((v) => v.inView && v.chatId === chatId);
  }

  /** Whether any tab of the console is in view. */
  anyInView(): boolean {
    return this.fresh().some((v) => v.inView);
  }

  /** Tells the other tabs the preferences changed. */
  prefsChanged() {
    this.post({ type: 'prefs', tab: this.id });
  }

  onPrefsChanged(fn: () => void): () => void {
    this.prefsListeners.add(fn);
    return () => this.prefsListeners.delete(fn);
  }

  close() {
    this.post({ type: 'bye', tab: this.id });
    this.release?.();
    this.leading = false;
    for (const fn of this.cleanups) fn();
    this.channel?.close();
  }

  /** Now leading: what this tab held and nobody announced is announced. */
  private takeOver() {
    const now = Date.now();
    this.forget(now);
    const held = [...this.held.entries()];
    this.held.clear();
    for (const [id, h] of held) this.speak(id, h.speak);
  }

  /** Drops what is older than `HOLD_MS`. */
  private forget(now: number) {
    for (const [id, h] of this.held) if (now - h.at >= HOLD_MS) this.held.delete(id);
    for (const [id, at] of this.spoken) if (now - at >= HOLD_MS) this.spoken.delete(id);
  }

  private fresh(): View[] {
    const now = Date.now();
    const own: View = { chatId: this.chatId, inView: inView(), at: now };
    return [own, ...[...this.views.values()].filter((v) => now - v.at < VIEW_TTL_MS)];
  }

  private announce() {
    this.post({ type: 'view', tab: this.id, chatId: this.chatId, inView: inView() });
  }

  private post(m: Message) {
    try {
      this.channel?.postMessage(m);
    } catch {
      // closed
    }
  }

  private receive(m: Message) {
    if (m.tab === this.id) return;
    if (m.type === 'view') this.views.set(m.tab, { chatId: m.chatId, inView: m.inView, at: Date.now() });
    else if (m.type === 'bye') this.views.delete(m.tab);
    else if (m.type === 'hello') this.announce();
    else if (m.type === 'spoke') {
      this.held.delete(m.id);
      this.spoken.set(m.id, Date.now());
    } else for (const fn of this.prefsListeners) fn();
  }
}

/** This tab is what the agent looks at: shown, and its window focused. */
export function inView(): boolean {
  return document.visibilityState === 'visible' && document.hasFocus();
}
