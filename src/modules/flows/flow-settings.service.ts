import type { UserActor } from '../../access/actors.js';
import { requirePermission } from '../../access/guards.js';
import type { EventsService } from '../../events/events.service.js';
import type { AuditService } from '../audit/index.js';
import { targets } from '../../events/rooms.js';
import { badRequest, notFound } from '../../http/errors.js';
import { en } from '../../http/language.js';
import type { ChatsRepo, ChatsService } from '../chats/index.js';
import type { ChannelsRepo } from '../channels/index.js';
import type { TeamsRepo } from '../teams/index.js';
import { defaultSettings } from './flow.js';
import type { FlowsRepo } from './flows.repo.js';
import { CHANNEL_FLOW, type ChannelFlowT, type ChatCsatT, type FlowSettings } from './flows.schemas.js';

/**
 * The admin side of built-in flows (docs/adr/0086-built-in-flows.md): a channel's flow read and set
 * whole by admins (`channels:manage`), the change an event to the account; and a conversation's
 * rating for whoever sees the conversation. The runtime is FlowsService.
 */
export class FlowSettingsService {
  constructor(
    private readonly repo: FlowsRepo,
    private readonly chats: ChatsRepo,
    private readonly chatAccess: Pick<ChatsService, 'canSee'>,
    private readonly channels: ChannelsRepo,
    private readonly teams: TeamsRepo,
    private readonly events: EventsService,
    private readonly audit: AuditService,
  ) {}

  async get(actor: UserActor, channelId: string): Promise<ChannelFlowT> {
    requirePermission(actor, 'channels:manage');
    const channel = await this.channels.find(actor.accountId, channelId);
    if (!channel) throw notFound();
    const row = await this.repo.find(channelId);
    if (row) return present(channelId, row.settings as FlowSettings, row.enabled, row.updated_at);
    const team = await this.teams.find(actor.accountId, channel.default_team_id);
    const settings = defaultSettings({ id: channel.default_team_id, name: team?.name ?? 'Atendimento' });
    return present(channelId, settings, false, null);
  }

  async update(actor: UserActor, channelId: string, input: FlowSettings): Promise<ChannelFlowT> {
    requirePermission(actor, 'channels:manage');
    const labels = new Map<string, number>();
    const problems = input.menu.options.flatMap((o, i) => {
      const key = o.label.trim().toLowerCase();
      const first = labels.get(key);
      labels.set(key, first ?? i);
      return first === undefined
        ? []
        : [
            en(
              `menu.options.${i}.label repeats option ${first + 1}`,
              `menu.options.${i}.label repete a opção ${first + 1}`,
            ),
          ];
    });
    return this.events.transaction(async (tx, events) => {
      if (!(await this.channels.find(actor.accountId, channelId, tx))) throw notFound();
      const active = await this.repo.activeTeams(
        tx,
        actor.accountId,
        input.menu.options.map((o) => o.teamId),
      );
      input.menu.options.forEach((o, i) => {
        if (!active.has(o.teamId))
          problems.push(
            en(
              `menu.options.${i}.teamId is not an active team of the account`,
              `menu.options.${i}.teamId não é uma equipe ativa da conta`,
            ),
          );
      });
      if (problems.length > 0) throw badRequest(problems);
      const settings: FlowSettings = {
        ...input,
        menu: { ...input.menu, options: input.menu.options.map((o) => ({ ...o, label: o.label.trim() })) },
      };
      const before = await this.repo.find(channelId, tx);
      const row = await this.repo.upsert(tx, {
        channel_id: channelId,
        account_id: actor.accountId,
        enabled: input.enabled,
        settings,
        updated_by: actor.userId,
      });
      // The sections that changed, not their texts: the flow's messages are the admin's to read in
      // the flow itself.
      await this.audit.record(tx, actor, {
        action: 'channel.set_flow',
        target: { type: 'channel', id: channelId },
        details: {
          enabled: input.enabled,
          changed: changedSections(
            before ? { ...(before.settings as object), enabled: before.enabled } : {},
            settings,
          ),
          teams: [...new Set(settings.menu.options.map((o) => o.teamId))],
        },
      });
      const flow = present(channelId, settings, row.enabled, row.updated_at);
      events.add(actor.accountId, CHANNEL_FLOW, { flow }, targets.account(actor.accountId));
      return flow;
    });
  }

  /** A conversation's rating, for whoever may see the conversation (another account's: 404). */
  async getCsat(actor: UserActor, chatId: string): Promise<{ csat: ChatCsatT | null }> {
    const chat = await this.chats.find(actor.accountId, chatId);
    if (!chat || !(await this.chatAccess.canSee(actor, chat))) throw notFound();
    const row = await this.repo.rating(actor.accountId, chatId);
    return {
      csat: row
        ? {
            chatId,
            score: row.score,
            teamId: row.team_id,
            userId: row.user_id,
            ratedAt: row.created_at.toISOString(),
          }
        : null,
    };
  }
}

function present(
  channelId: string,
  settings: FlowSettings,
  enabled: boolean,
  updatedAt: Date | null,
): ChannelFlowT {
  return {
    channelId,
    configured: updatedAt !== null,
    ...settings,
    enabled,
    updatedAt: updatedAt?.toISOString() ?? null,
  };
}

/** A JSON value with its objects' keys sorted: stored `jsonb` keeps its own key order. */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.entries(v)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([k, x]) => [k, canonical(x)]),
    );
  return v;
}

/** The top-level sections of the flow whose value differs from the stored one (all, the first time). */
function changedSections(before: object, after: FlowSettings): string[] {
  const old = before as Record<string, unknown>;
  return Object.entries(after)
    .filter(([k, v]) => JSON.stringify(canonical(v)) !== JSON.stringify(canonical(old[k])))
    .map(([k]) => k)
    .sort();
}
