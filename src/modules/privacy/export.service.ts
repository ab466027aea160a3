import type { UserActor } from '../../access/actors.js';
import { requirePermission } from '../../access/guards.js';
import { notFound } from '../../http/errors.js';
import type { MediaStore } from '../media/index.js';
import type { Db } from '../../db/index.js';
import type { AuditService } from '../audit/index.js';
import type { ExportChat, PrivacyRepo } from './privacy.repo.js';
import { zipStream, type ZipEntry } from './zip.js';

/** Rows per query: memory holds one page of messages, never a whole conversation. */
const CHATS_PAGE = 100;
const MESSAGES_PAGE = 500;
const MEDIA_PAGE = 50;

const encoder = new TextEncoder();
const bytes = (s: string) => encoder.encode(s);

/** A file name safe inside an archive: no directories, no control characters. */
function safeName(name: string | null): string {
  const cleaned = [...(name ?? '')]
    .map((c) => (c === '/' || c === '\\' || c.charCodeAt(0) < 32 ? '_' : c))
    .join('')
    .slice(0, 100);
  return cleaned === '' || cleaned === '.' || cleaned === '..' ? 'file' : cleaned;
}

/**
 * The data subject's access right (LGPD art. 18): everything stored about a person, as one ZIP read
 * from the database a page at a time (docs/adr/0092-data-subject-rights.md).
 */
export class DataExportService {
  constructor(
    private readonly db: Db,
    private readonly repo: PrivacyRepo,
    private readonly mediaStore: MediaStore,
    private readonly audit: AuditService,
  ) {}

  /** Checks and resolves before answering, so that a refusal is a status, not a broken download. */
  async export(actor: UserActor, id: string): Promise<{ customerId: string; body: AsyncIterable<Buffer> }> {
    requirePermission(actor, 'customers:manage');
    const customerId = await this.repo.subject(actor.accountId, id);
    if (!customerId) throw notFound();
    // Who took whose data, written before the first byte leaves: the person by id only (nothing of
    // the export is kept, so an erasure leaves nothing of them here).
    await this.audit.record(this.db, actor, {
      action: 'contact.export',
      target: { type: 'contact', id: customerId },
      details: customerId === id ? {} : { requestedId: id },
    });
    return { customerId, body: zipStream(this.entries(customerId)) };
  }

  private async *entries(customerId: string): AsyncGenerator<ZipEntry> {
    const now = new Date();
    const profile = await this.repo.profile(customerId);
    yield {
      name: 'contact.json',
      modified: now,
      data: async function* () {
        yield bytes(JSON.stringify(profile, null, 2));
      },
    };
    yield { name: 'conversations.json', modified: now, data: () => this.conversations(customerId) };
    for await (const chat of this.allChats(customerId)) {
      let after = '';
      for (;;) {
        const page = await this.repo.media(chat.id, after, MEDIA_PAGE);
        for (const m of page) {
          yield {
            name: `media/${m.message_id}-${safeName(m.filename)}`,
            modified: m.created_at,
            data: () => this.file(m.message_id),
          };
        }
        if (page.length < MEDIA_PAGE) break;
        after = page[page.length - 1]!.message_id;
      }
    }
  }

  private async *file(key: string): AsyncGenerator<Uint8Array> {
    const file = await this.mediaStore.stat(this.db, key);
    if (file) yield* this.mediaStore.read(file);
  }

  private async *allChats(customerId: string): AsyncGenerator<ExportChat> {
    let after = '';
    for (;;) {
      const page = await this.repo.chats(customerId, after, CHATS_PAGE);
      yield* page;
      if (page.length < CHATS_PAGE) return;
      after = page[page.length - 1]!.id;
    }
  }

  /** `[{...conversation, "messages": [...]}, ...]`, written as the pages are read. */
  private async *conversations(customerId: string): AsyncGenerator<Uint8Array> {
    yield bytes('[');
    let firstChat = true;
    for await (const chat of this.allChats(customerId)) {
      const head = JSON.stringify({
        id: chat.id,
        channelId: chat.channel_id,
        channelName: chat.channel_name,
        contactId: chat.contact_id,
        status: chat.status,
        createdAt: chat.created_at,
        closedAt: chat.closed_at,
      });
      yield bytes(`${firstChat ? '' : ','}\n${head.slice(0, -1)},"messages":[`);
      firstChat = false;
      let after: { at: string; id: string } | null = null;
      let firstMessage = true;
      for (;;) {
        const page = await this.repo.messages(chat.id, after, MESSAGES_PAGE);
        const text = page
          .map((m) =>
            JSON.stringify({
              id: m.id,
              from: m.origin,
              type: m.type,
              content: m.content,
              status: m.status,
              userId: m.user_id,
              userName: m.user_name,
              senderName: m.sender_name,
              senderAddress: m.sender_address,
              createdAt: m.created_at,
              updatedAt: m.updated_at,
            }),
          )
          .join(',\n');
        if (text !== '') yield bytes(`${firstMessage ? '\n' : ',\n'}${text}`);
        if (page.length > 0) firstMessage = false;
        if (page.length < MESSAGES_PAGE) break;
        const last = page[page.length - 1]!;
        after = { at: last.cursor_at, id: last.id };
      }
      yield bytes(']}');
    }
    yield bytes('\n]\n');
  }
}
