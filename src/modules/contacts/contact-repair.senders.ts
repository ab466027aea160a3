import type { Logger } from 'pino';
import type { ProviderRegistry } from '../../providers/registry.js';
import type { ChannelsRepo } from '../channels/index.js';
import type { HeldSender, Sender } from './contact-repair.plan.js';
import type { ContactRepairRepo } from './contact-repair.repo.js';
import { providerPhoneValue } from './normalize.js';

/** Stored webhooks looked at per query, and the most bytes of them read at once. */
const WEBHOOK_PAGE = 500;
const WEBHOOK_BYTES = 8 * 1024 * 1024;

/**
 * Customers' messages stored before their sender was recorded (before migration 024): their senders
 * read back from the stored webhooks, through the channel's provider.
 */
export class StoredSenders {
  constructor(
    private readonly repo: ContactRepairRepo,
    private readonly channels: ChannelsRepo,
    private readonly providers: ProviderRegistry,
    private readonly logger: Logger,
  ) {}

  /**
   * The senders of customers' messages stored before they were recorded, read from the stored
   * webhooks through the channel's provider: recorded on the messages, or in a dry run held in memory
   * for those that are not the contact's number (all that the check needs).
   */
  async read(held: Map<string, HeldSender> | null): Promise<{ withoutSender: number; recorded: number }> {
    let withoutSender = 0;
    let recorded = 0;
    for (const { channel_id, until, n } of await this.repo.channelsWithUnrecordedSenders()) {
      withoutSender += n;
      const channel = await this.channels.findById(channel_id);
      const webhooks = channel ? this.providers.get(channel.provider).webhooks : undefined;
      if (!channel || !webhooks) continue;
      const ctx = { channelId: channel.id, config: channel.provider_config };
      for (let after = ''; ;) {
        const page = await this.repo.webhookPage(channel.id, until, after, WEBHOOK_PAGE);
        if (page.length === 0) break;
        after = page.at(-1)!.id;
        for (const ids of bySize(page, WEBHOOK_BYTES)) {
          const senders = new Map<string, Sender>();
          for (const event of await this.repo.webhookBodies(ids)) {
            try {
              for (const m of webhooks.parse(ctx, event.body, event.received_at).messages)
                if (m.sender)
                  senders.set(m.providerMessageId, { address: m.sender.address, name: m.sender.name });
            } catch (err) {
              this.logger.warn({ err, eventId: event.id }, 'a stored webhook could not be read; skipped');
            }
          }
          const found = await this.repo.unrecordedMessages(channel.id, [...senders.keys()]);
          if (held === null) {
            recorded += await this.repo.recordSenders(
              found.map((f) => ({ id: f.id, ...senders.get(f.provider_message_id)! })),
            );
            continue;
          }
          for (const f of found) {
            const sender = senders.get(f.provider_message_id)!;
            if (f.contact_type === 'phone' && providerPhoneValue(sender.address) !== f.contact_value)
              held.set(f.id, { ...sender, contactId: f.contact_id });
          }
        }
      }
    }
    return { withoutSender, recorded };
  }
}

/** Page entries grouped so that each group's stored bytes stay under `max` (at least one each). */
function bySize(page: readonly { id: string; size: number }[], max: number): string[][] {
  const out: string[][] = [];
  let group: string[] = [];
  let bytes = 0;
  for (const e of page) {
    if (group.length > 0 && bytes + e.size > max) {
      out.push(group);
      group = [];
      bytes = 0;
    }
    group.push(e.id);
    bytes += e.size;
  }
  if (group.length > 0) out.push(group);
  return out;
}
