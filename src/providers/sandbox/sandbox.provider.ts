import { randomUUID } from 'node:crypto';
import type { MessagingProvider, PreparedMessage, ProviderContext, SendResult } from '../types.js';

/**
 * The built-in channel that never leaves the installation: an outbound message is accepted at once
 * with a synthetic id (the stored message is its record), and it counts as delivered right away since
 * no receipt will ever come.
 */
export class SandboxProvider implements MessagingProvider {
  readonly name = 'sandbox' as const;
  readonly deliveredOnSend = true;

  async send(_ctx: ProviderContext, _to: string, _message: PreparedMessage): Promise<SendResult> {
    return { providerMessageId: `sandbox.${randomUUID()}`, recipientAddress: null };
  }

  /** The simulated customer has no phone to show ticks on. */
  async markRead(_ctx: ProviderContext, _providerMessageId: string): Promise<void> {}

  async uploadMedia(
    _ctx: ProviderContext,
    _file: { bytes: Buffer; mimetype: string; filename?: string },
  ): Promise<{ mediaId: string }> {
    return { mediaId: `sandbox-media.${randomUUID()}` };
  }
}
