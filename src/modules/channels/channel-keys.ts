import type { ProviderName } from '../../db/types.js';
import { AppError, badRequest } from '../../http/errors.js';
import { Batcher } from '../../db/batcher.js';
import { parseToken, safeEqual, sha256 } from '../../lib/secrets.js';
import { CHANNEL_KEY_PREFIX } from './channels.service.js';
import type { ChannelKeyRow, ChannelsRepo } from './channels.repo.js';

/** The channel a Channel API key opened, as the send routes need it. */
export interface ApiChannel {
  id: string;
  accountId: string;
  provider: ProviderName;
}

export const INVALID_API_TOKEN = 'Invalid API token';
export const MISSING_CHANNEL_KEY = 'x-channel-api-key header is required';

/** The Channel API's channel keys (`x-channel-api-key`), checked against the database on every request. */
export class ChannelKeys {
  private readonly keyLookups: Batcher<string, ChannelKeyRow | undefined>;

  constructor(private readonly channels: ChannelsRepo) {
    // Concurrent key checks share one query; each still reads the database after its request arrived.
    this.keyLookups = new Batcher<string, ChannelKeyRow | undefined>({
      run: async (ids) => {
        const rows = new Map((await this.channels.findKeys([...new Set(ids)])).map((r) => [r.id, r]));
        return ids.map((id) => rows.get(id));
      },
      concurrency: 2,
      maxItems: 500,
      maxWeight: Number.POSITIVE_INFINITY,
      weight: () => 0,
    });
  }

  /**
   * The channel of an `x-channel-api-key`. Looked up on every request, so a rotated key or a disabled
   * API stops working at once on every node. Missing → 400; anything else wrong → 404.
   */
  async authenticate(header: string | string[] | undefined): Promise<ApiChannel> {
    const value = Array.isArray(header) ? header[0] : header;
    if (value === undefined || value.trim() === '') throw badRequest(MISSING_CHANNEL_KEY);
    const parsed = parseToken(CHANNEL_KEY_PREFIX, value.trim());
    if (!parsed) throw new AppError(404, INVALID_API_TOKEN);
    const row = await this.keyLookups.submit(parsed.id);
    // The hash is compared even for a disabled channel, so timing tells nothing about the channel.
    const matches = row?.api_key_hash ? safeEqual(sha256(parsed.secret), row.api_key_hash) : false;
    if (!row || !matches || !row.api_enabled) throw new AppError(404, INVALID_API_TOKEN);
    return { id: row.id, accountId: row.account_id, provider: row.provider };
  }
}
