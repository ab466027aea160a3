import type { Logger } from 'pino';
import type { EventsService } from '../../events/events.service.js';
import { ProviderError, type ProviderContext, type ProviderObserver } from '../../providers/types.js';
import type { NotificationsService } from '../notifications/index.js';
import type { ChannelsRepo } from './channels.repo.js';

/** Error code of a send refused because its channel is unhealthy (nothing was sent). */
export const CHANNEL_UNHEALTHY = 'channel_unhealthy';

/** The failure of a message not sent because its channel's credentials were refused earlier. */
export function channelUnhealthyError(): ProviderError {
  return new ProviderError(
    CHANNEL_UNHEALTHY,
    "The channel's access token was refused by the provider (expired or revoked); an admin must store a new one",
    false,
  );
}

/**
 * Channel health: a channel whose credentials the provider refused (WhatsApp's Graph error 190) is
 * marked `unhealthy` by the first call that sees it — a send, a media upload, a read receipt — and
 * the account's channel admins are told once, with a notification (`notification.new` to each).
 * Storing a new access token makes it `ok` again (ChannelsService.update).
 */
export class ChannelHealthService implements ProviderObserver {
  constructor(
    private readonly repo: ChannelsRepo,
    private readonly events: EventsService,
    private readonly notifications: NotificationsService,
    private readonly logger: Logger,
  ) {}

  async credentialsRefused(ctx: ProviderContext, error: ProviderError): Promise<void> {
    const token = ctx.config.accessToken;
    if (typeof token !== 'string') return;
    const reason = {
      code: error.code,
      message: error.message,
      ...(error.details !== undefined ? { details: error.details } : {}),
    };
    try {
      await this.events.transaction(async (tx, events) => {
        // Only the call that moves it from ok notifies: concurrent failures, and later ones, do not.
        const changed = await this.repo.markUnhealthy(tx, ctx.channelId, token, reason);
        if (!changed) return;
        this.logger.warn(
          { channelId: ctx.channelId, code: error.code },
          'the provider refused the channel access token; channel marked unhealthy',
        );
        await this.notifications.notifyPermission(
          tx,
          events,
          changed.account_id,
          'channels:manage',
          'channel.unhealthy',
          { channelId: ctx.channelId, name: changed.name, reason },
        );
      });
    } catch (err) {
      // The call's own failure is what its caller records; the mark is retried by the next call.
      this.logger.error({ err, channelId: ctx.channelId }, 'marking a channel unhealthy failed');
    }
  }
}
