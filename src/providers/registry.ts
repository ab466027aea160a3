import type { Config } from '../config.js';
import { Tracing } from '../lib/tracing.js';
import type { ProviderName } from '../db/types.js';
import { SANDBOX_LIMITS, SandboxProvider } from './sandbox/sandbox.provider.js';
import type { MessagingProvider, ProviderError, ProviderObserver } from './types.js';
import { isGraphRateLimit, isTokenRefused } from './whatsapp-cloud/errors.js';
import { WhatsAppCloudProvider } from './whatsapp-cloud/client.js';
import { WHATSAPP_LIMITS } from './whatsapp-cloud/limits.js';

/** The largest media file any provider takes: what a send's body must have room for. */
export const LARGEST_MEDIA_BYTES = Math.max(
  ...[WHATSAPP_LIMITS, SANDBOX_LIMITS].flatMap((limits) => Object.values(limits.mediaMaxBytes)),
);

/**
 * What a request schema can say before it knows the channel: the limits every provider shares
 * (today they all take WhatsApp's). A provider with wider limits would still be held to these.
 */
const EVERY_PROVIDER = [WHATSAPP_LIMITS, SANDBOX_LIMITS];
export const TEXT_MAX_LENGTH = Math.min(...EVERY_PROVIDER.map((l) => l.textMaxLength));
export const CAPTION_MAX_LENGTH = Math.min(...EVERY_PROVIDER.map((l) => l.captionMaxLength));
export const MEDIA_TYPES_OF_EVERY_PROVIDER: readonly string[] = Object.keys(
  WHATSAPP_LIMITS.mediaTypes,
).filter((type) => EVERY_PROVIDER.every((l) => Object.hasOwn(l.mediaTypes, type)));

/**
 * What a provider's error code says beyond temporary or permanent, for metrics: the channel's
 * credentials were refused, or a rate limit was hit. Null for any other refusal.
 */
export function providerErrorKind(err: ProviderError): 'credentials' | 'rate_limited' | null {
  if (isTokenRefused(err)) return 'credentials';
  if (isGraphRateLimit(err)) return 'rate_limited';
  return null;
}

/** One provider instance per kind, shared by every channel of that kind (settings come per call). */
export class ProviderRegistry {
  private readonly providers: Record<ProviderName, MessagingProvider>;

  constructor(config: Config['whatsapp'], observer?: ProviderObserver, tracing: Tracing = Tracing.off) {
    this.providers = {
      'whatsapp-cloud': new WhatsAppCloudProvider({
        baseUrl: config.graphBaseUrl,
        version: config.graphVersion,
        timeoutMs: config.timeoutMs,
        tracing,
        ...(observer ? { observer } : {}),
      }),
      sandbox: new SandboxProvider(),
    };
  }

  get(name: ProviderName): MessagingProvider {
    return this.providers[name];
  }
}
