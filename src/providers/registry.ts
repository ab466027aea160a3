import type { Config } from '../config.js';
import type { ProviderName } from '../db/types.js';
import { SandboxProvider } from './sandbox/sandbox.provider.js';
import type { MessagingProvider, ProviderObserver } from './types.js';
import { WhatsAppCloudProvider } from './whatsapp-cloud/client.js';

/** One provider instance per kind, shared by every channel of that kind (settings come per call). */
export class ProviderRegistry {
  private readonly providers: Record<ProviderName, MessagingProvider>;

  constructor(config: Config['whatsapp'], observer?: ProviderObserver) {
    this.providers = {
      'whatsapp-cloud': new WhatsAppCloudProvider({
        baseUrl: config.graphBaseUrl,
        version: config.graphVersion,
        timeoutMs: config.timeoutMs,
        ...(observer ? { observer } : {}),
      }),
      sandbox: new SandboxProvider(),
    };
  }

  get(name: ProviderName): MessagingProvider {
    return this.providers[name];
  }
}
