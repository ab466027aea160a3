import { createHash } from 'node:crypto';
import { AppError, notFound } from '../../http/errors.js';
import type { ProviderRegistry } from '../../providers/registry.js';
import { ProviderError, type ProviderTemplate } from '../../providers/types.js';
import type { UserActor } from '../../access/actors.js';
import type { ChannelsRepo } from './channels.repo.js';

/** How long a channel's template list is reused: templates change rarely, agents open many chats. */
export const TEMPLATE_CACHE_MS = 60_000;
/** Channels whose lists are kept at once; the oldest goes first. */
const TEMPLATE_CACHE_ENTRIES = 500;

export const TEMPLATES_UNREACHABLE = 'Não foi possível obter os modelos aprovados do canal';

export interface ChannelTemplates {
  /** Whether the channel can list its templates; when false, agents type name, language and values. */
  available: boolean;
  templates: ProviderTemplate[];
}

/**
 * The approved templates an agent may send on a channel, as its provider lists them (WhatsApp: from
 * the business account in the channel's settings). Cached briefly per channel and settings, so a
 * busy console does not ask the provider on every conversation opened; failures are not cached.
 */
export class TemplatesService {
  private readonly cache = new Map<string, { expires: number; list: Promise<ProviderTemplate[] | null> }>();

  constructor(
    private readonly channels: ChannelsRepo,
    private readonly providers: ProviderRegistry,
    private readonly now: () => number = Date.now,
  ) {}

  /** For users who may see chats of the channel; others (and other accounts) get 404. */
  async list(actor: UserActor, channelId: string): Promise<ChannelTemplates> {
    const channel = await this.channels.find(actor.accountId, channelId);
    if (!channel) throw notFound();
    if (
      !actor.permissions.has('chats:read_all') &&
      !(await this.channels.visibleToMember(actor.accountId, channel.id, actor.userId))
    ) {
      throw notFound();
    }
    const provider = this.providers.get(channel.provider);
    if (!provider.listTemplates) return { available: false, templates: [] };
    const listTemplates = provider.listTemplates.bind(provider);
    // A change of the channel's settings (another account, another token) is another entry.
    const key = `${channel.id}:${createHash('sha256').update(JSON.stringify(channel.provider_config)).digest('hex')}`;
    const now = this.now();
    let entry = this.cache.get(key);
    if (!entry || entry.expires <= now) {
      const list = listTemplates({ channelId: channel.id, config: channel.provider_config });
      entry = { expires: now + TEMPLATE_CACHE_MS, list };
      this.cache.delete(key);
      this.cache.set(key, entry);
      const stored = entry;
      list.catch(() => {
        if (this.cache.get(key) === stored) this.cache.delete(key);
      });
      for (const old of this.cache.keys()) {
        if (this.cache.size <= TEMPLATE_CACHE_ENTRIES) break;
        this.cache.delete(old);
      }
    }
    try {
      const templates = await entry.list;
      return templates === null ? { available: false, templates: [] } : { available: true, templates };
    } catch (err) {
      if (!(err instanceof ProviderError)) throw err;
      // The provider's reason, for whoever fixes the channel's settings; never a 500.
      throw new AppError(502, `${TEMPLATES_UNREACHABLE}: ${err.message} (${err.code})`);
    }
  }
}
