import { createHash, randomBytes } from 'node:crypto';

/**
 * Sends with files, a few at a time, alongside a text load: an agent's reply with a document in a
 * conversation they attend (`POST /api/chats/:id/messages`, kept in the media store) and, in turn, a
 * Channel API media send (`POST /channel-api/messages/send`, whose file waits in `media_blobs` until
 * the provider has it). Every file is random and of its own size, some spanning several 256 KiB chunks,
 * and named after its send, so a provider's upload tells which send it was.
 */

export interface MediaAttempt {
  kind: 'agent-reply' | 'channel-send';
  /** The reply's message id, or the Channel API request's id (once answered 201). */
  id: string | null;
  filename: string;
  sha256: string;
  size: number;
  status: number | 'error';
  endedAt: number;
}

export interface MediaLoadTarget {
  url: string;
  adminToken: string;
  channelKey: string;
  /** A conversation the admin attends, for the replies. */
  chatId: string;
}

const SIZES = [1_500, 90_000, 300_000, 600_000];

export class MediaLoad {
  readonly attempts: MediaAttempt[] = [];
  private stopped = false;
  private readonly loops: Promise<void>[] = [];
  private next = 0;

  constructor(private readonly target: MediaLoadTarget) {}

  /** `concurrency` loops, each one send at a time. */
  start(concurrency: number): void {
    for (let i = 0; i < concurrency; i++) this.loops.push(this.loop());
  }

  /** Stops issuing and waits for the sends in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.loops);
  }

  accepted(kind: MediaAttempt['kind']): MediaAttempt[] {
    return this.attempts.filter((a) => a.kind === kind && a.status === 201);
  }

  private async loop(): Promise<void> {
    while (!this.stopped) await this.send(this.next++);
  }

  private async send(n: number): Promise<void> {
    const kind = n % 2 === 0 ? 'agent-reply' : 'channel-send';
    const bytes = randomBytes(SIZES[Math.floor(n / 2) % SIZES.length]!);
    const filename = `backup-${n}.pdf`;
    const media = { mimetype: 'application/pdf', filename, base64: bytes.toString('base64') };
    const { url, adminToken, channelKey, chatId } = this.target;
    const [path, headers, body] =
      kind === 'agent-reply'
        ? [`/api/chats/${chatId}/messages`, { authorization: `Bearer ${adminToken}` }, { media }]
        : [
            '/channel-api/messages/send',
            { 'x-channel-api-key': channelKey },
            // A number of its own per send: the text load's contacts keep their order to themselves.
            { contact: { value: `5511976${String(n).padStart(6, '0')}` }, message: { type: 'media', media } },
          ];
    const attempt: MediaAttempt = {
      kind,
      id: null,
      filename,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      size: bytes.length,
      status: 'error',
      endedAt: 0,
    };
    this.attempts.push(attempt);
    try {
      const res = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
      const json = (await res.json().catch(() => ({}))) as { id?: string; requestId?: string };
      attempt.status = res.status;
      attempt.id = (kind === 'agent-reply' ? json.id : json.requestId) ?? null;
    } catch {
      attempt.status = 'error';
    } finally {
      attempt.endedAt = Date.now();
    }
  }
}
