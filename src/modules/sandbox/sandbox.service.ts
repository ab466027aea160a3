import { badRequest, notFound } from '../../http/errors.js';
import type { UserActor } from '../../access/actors.js';
import type { ChannelsRepo } from '../channels/index.js';
import type { ChatsRepo, ChatsService } from '../chats/index.js';
import type { MessageStatusService } from '../inbound/index.js';
import type { SandboxRepo } from './sandbox.repo.js';
import { pt } from '../../http/language.js';

export const NOT_SANDBOX = pt('O canal não é um canal sandbox', 'The channel is not a sandbox channel');

/**
 * The customer's side of a sandbox channel beyond writing (which is the inbound path): reading.
 * A real provider reports `read` when the customer opens the messages; the sandbox has no customer
 * device, so the simulator reports it, through the same status path as a WhatsApp receipt.
 */
export class SandboxService {
  constructor(
    private readonly channels: ChannelsRepo,
    private readonly chats: ChatsRepo,
    private readonly chatAccess: ChatsService,
    private readonly repo: SandboxRepo,
    private readonly statuses: MessageStatusService,
  ) {}

  /**
   * The customer of `chatId` read everything sent to them; answers how many messages moved to read.
   * Only for a user who may see the chat (as every other chat action): another's is 404.
   */
  async customerRead(actor: UserActor, channelId: string, chatId: string): Promise<{ read: number }> {
    const channel = await this.channels.find(actor.accountId, channelId);
    if (!channel) throw notFound();
    if (channel.provider !== 'sandbox') throw badRequest(NOT_SANDBOX);
    const chat = await this.chats.find(actor.accountId, chatId);
    if (!chat || chat.channel_id !== channelId || !(await this.chatAccess.canSee(actor, chat))) {
      throw notFound();
    }
    let read = 0;
    const timestamp = new Date();
    for (const providerMessageId of await this.repo.unreadOutgoing(actor.accountId, chatId)) {
      const outcome = await this.statuses.apply(channelId, {
        providerMessageId,
        status: 'read',
        timestamp,
        recipient: null,
        error: null,
      });
      if (outcome === 'changed') read++;
    }
    return { read };
  }
}
