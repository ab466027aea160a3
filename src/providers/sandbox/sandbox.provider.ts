import { randomUUID } from 'node:crypto';
import { WHATSAPP_LIMITS } from '../whatsapp-cloud/limits.js';
import type {
  MessagingProvider,
  OutboundFile,
  OutboundLimits,
  PreparedMessage,
  ProviderContext,
  SendResult,
} from '../types.js';

/** The sandbox stands in for a WhatsApp customer: a message tried here is one WhatsApp would take. */
export const SANDBOX_LIMITS: OutboundLimits = WHATSAPP_LIMITS;

/**
 * The built-in channel that never leaves the installation: an outbound message is accepted at once
 * with a synthetic id (the stored message is its record), and it counts as delivered right away since
 * no receipt will ever come.
 */
export class SandboxProvider implements MessagingProvider {
  readonly name = 'sandbox' as const;
  readonly deliveredOnSend = true;
  readonly limits = SANDBOX_LIMITS;

  async send(_ctx: ProviderContext, _to: string, _message: PreparedMessage): Promise<SendResult> {
    return { providerMessageId: `sandbox.${randomUUID()}`, recipientAddress: null };
  }

  /** The simulated customer has no phone to show ticks on. */
  async markRead(_ctx: ProviderContext, _providerMessageId: string): Promise<void> {}

  async uploadMedia(_ctx: ProviderContext, _file: OutboundFile): Promise<{ mediaId: string }> {
    return { mediaId: `sandbox-media.${randomUUID()}` };
  }
}
