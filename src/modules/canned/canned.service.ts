import { inTransaction, type Db, type Tx } from '../../db/index.js';
import type { AuditAction, AuditService } from '../audit/index.js';
import type { CannedScope } from '../../db/types.js';
import { badRequest, conflict, forbidden, notFound } from '../../http/errors.js';
import { en, pt } from '../../http/language.js';
import { pageInfo } from '../../http/schemas.js';
import { newId } from '../../lib/ids.js';
import type { DecodedBase64 } from '../../lib/base64-stream.js';
import type { OutboundLimits } from '../../providers/types.js';
import type { UserActor } from '../../access/actors.js';
import type { ChatsService } from '../chats/index.js';
import type { LoadedMediaBlob, MediaBlobsRepo } from '../media/index.js';
import { prepareMessage, type SendMessage } from '../message-content/index.js';
import type { TeamsRepo } from '../teams/index.js';
import { TEAM_NOT_FOUND } from '../teams/index.js';
import type { CustomerAttributes } from './canned.attributes.js';
import { toCanned } from './canned.presenter.js';
import type { CannedRepo, CannedRow, CannedViewer } from './canned.repo.js';
import {
  MAX_PER_OWNER,
  type CannedAttachmentInput,
  type CannedPageT,
  type CannedResponseT,
  type CannedUseT,
  type CreateCannedInput,
  type ListCannedQueryT,
  type RenderedCannedT,
  type UpdateCannedInput,
} from './canned.schemas.js';
import { renderVariables, unknownVariables, unknownVariablesMessage } from './canned.variables.js';

export const TEAM_ID_FOR_TEAM_ONLY = en(
  'teamId is required for scope team, and only for it',
  'teamId é obrigatório para o escopo team, e só para ele',
);
export const SHORTCUT_TAKEN = pt(
  'Já existe uma resposta pronta com este atalho',
  'A canned response with this shortcut already exists',
);
export const TOO_MANY = (max: number) =>
  pt(
    `No máximo ${max} respostas prontas neste escopo; exclua uma antes`,
    `At most ${max} canned responses of this scope; delete one first`,
  );
const MAY_NOT_MANAGE = pt(
  'Você não pode alterar as respostas prontas deste escopo',
  'You may not change canned responses of this scope',
);

const UNIQUE_VIOLATION = '23505';
const isUniqueViolation = (err: unknown) =>
  typeof err === 'object' && err !== null && (err as { code?: unknown }).code === UNIQUE_VIOLATION;

/**
 * Canned responses: account-wide, a team's or one user's. Everyone uses what they see (the account's,
 * their teams', their own); admins (`canned_responses:manage`) manage the account's and every team's,
 * supervisors (`canned_responses:manage_team`) their own teams', and each user their personal ones.
 * Another user's personal response, a team's of a team not theirs, or another account's is a 404.
 */
export class CannedService {
  constructor(
    private readonly db: Db,
    private readonly repo: CannedRepo,
    private readonly teams: TeamsRepo,
    private readonly chats: ChatsService,
    private readonly blobs: MediaBlobsRepo,
    /** The account's custom attribute keys and a customer's values (docs/adr/0072). */
    private readonly attributes: CustomerAttributes,
    /** What an attachment must satisfy to be sent on any channel. */
    private readonly limits: OutboundLimits,
    private readonly audit: AuditService,
  ) {}

  async list(actor: UserActor, query: ListCannedQueryT): Promise<CannedPageT> {
    const page = query.page ?? 1;
    const limit = query.limit ?? 20;
    const search = query.q?.trim();
    const { rows, total } = await this.repo.list(
      viewerOf(actor),
      {
        ...(search ? { search } : {}),
        ...(query.scope ? { scope: query.scope } : {}),
        ...(query.teamId ? { teamId: query.teamId } : {}),
      },
      limit,
      (page - 1) * limit,
    );
    const managed = await this.managedTeams(actor);
    return {
      ...pageInfo(total, page, limit),
      cannedResponses: rows.map((r) => toCanned(r, this.canManage(actor, r, managed))),
    };
  }

  async get(actor: UserActor, id: string): Promise<CannedResponseT> {
    const row = await this.visible(actor, id);
    return toCanned(row, this.canManage(actor, row, await this.managedTeams(actor)));
  }

  async create(actor: UserActor, input: CreateCannedInput): Promise<CannedResponseT> {
    if ((input.scope === 'team') !== (input.teamId !== undefined)) throw badRequest([TEAM_ID_FOR_TEAM_ONLY]);
    const teamId = input.scope === 'team' ? input.teamId! : null;
    if (teamId !== null && !(await this.teams.find(actor.accountId, teamId))) {
      throw badRequest([TEAM_NOT_FOUND]);
    }
    await this.requireManage(actor, input.scope, teamId);
    await this.checkVariables(actor.accountId, input.content);
    const ownerKey = input.scope === 'account' ? 'account' : input.scope === 'team' ? teamId! : actor.userId;
    const id = newId();
    await this.uniqueShortcut(() =>
      inTransaction(this.db, async (tx) => {
        const max = MAX_PER_OWNER[input.scope];
        if ((await this.repo.countOwnerLocked(tx, actor.accountId, ownerKey)) >= max) {
          throw conflict(TOO_MANY(max));
        }
        await this.repo.insert(tx, {
          id,
          account_id: actor.accountId,
          scope: input.scope,
          team_id: teamId,
          user_id: input.scope === 'personal' ? actor.userId : null,
          owner_key: ownerKey,
          shortcut: input.shortcut,
          content: input.content,
          created_by: actor.userId,
        });
        await this.record(tx, actor, { id, scope: input.scope, team_id: teamId }, 'canned.create', {
          shortcut: input.shortcut,
        });
      }),
    );
    return this.get(actor, id);
  }

  async update(actor: UserActor, id: string, input: UpdateCannedInput): Promise<CannedResponseT> {
    const row = await this.managed(actor, id);
    if (input.content !== undefined) await this.checkVariables(actor.accountId, input.content);
    await this.uniqueShortcut(() =>
      inTransaction(this.db, async (tx) => {
        await this.repo.update(tx, actor.accountId, row.id, input);
        // The text by name only: it may be long, and it is the response's to show.
        await this.record(tx, actor, row, 'canned.update', {
          changed: Object.keys(input).sort(),
          shortcut: input.shortcut ?? row.shortcut,
        });
      }),
    );
    return this.get(actor, id);
  }

  async delete(actor: UserActor, id: string): Promise<void> {
    const row = await this.managed(actor, id);
    await inTransaction(this.db, async (tx) => {
      const file = await this.repo.delete(tx, actor.accountId, row.id);
      if (file) await this.blobs.delete(tx, file);
      await this.record(tx, actor, row, 'canned.delete', { shortcut: row.shortcut });
    });
  }

  /**
   * Gives the response a file (replacing any earlier one), checked as an agent's media reply is:
   * inserting the response attaches it in the composer, and it is sent like any attachment.
   */
  async setAttachment(
    actor: UserActor,
    id: string,
    body: CannedAttachmentInput,
    file: DecodedBase64 | null,
  ): Promise<CannedResponseT> {
    const row = await this.managed(actor, id);
    const message = { type: 'media', media: body } as unknown as SendMessage;
    const result = prepareMessage(message, this.limits, file ? { base64: file } : {});
    if (!result.ok) throw badRequest(result.messages.map((m) => m.replace(/^media\./, '')));
    if (result.prepared.type !== 'media') throw badRequest(['mimetype must be a media type']);
    const { mimetype, filename } = result.prepared.media;
    const blobId = newId();
    const pieces = file && body.base64 === '' ? file.pieces : [Buffer.from(body.base64, 'base64')];
    await inTransaction(this.db, async (tx) => {
      await this.blobs.insert(tx, [
        { id: blobId, account_id: actor.accountId, mimetype, filename: filename ?? null, pieces },
      ]);
      const previous = await this.repo.setAttachment(tx, actor.accountId, row.id, blobId);
      if (previous) await this.blobs.delete(tx, previous);
      await this.record(tx, actor, row, 'canned.set_attachment', { shortcut: row.shortcut, mimetype });
    });
    return this.get(actor, id);
  }

  async removeAttachment(actor: UserActor, id: string): Promise<CannedResponseT> {
    const row = await this.managed(actor, id);
    await inTransaction(this.db, async (tx) => {
      const previous = await this.repo.setAttachment(tx, actor.accountId, row.id, null);
      if (previous) await this.blobs.delete(tx, previous);
      if (previous) await this.record(tx, actor, row, 'canned.remove_attachment', { shortcut: row.shortcut });
    });
    return this.get(actor, id);
  }

  /**
   * A line for a change of the account's or a team's response (admins' and supervisors'): a user's
   * personal responses are their own, not an admin action, and are not recorded.
   */
  private async record(
    tx: Tx,
    actor: UserActor,
    row: { id: string; scope: string; team_id: string | null },
    action: string,
    details: Record<string, unknown>,
  ): Promise<void> {
    if (row.scope === 'personal') return;
    const line: AuditAction = {
      action,
      target: { type: 'canned_response', id: row.id },
      details: { scope: row.scope, ...(row.team_id !== null && { teamId: row.team_id }), ...details },
    };
    await this.audit.record(tx, actor, line);
  }

  /** The file of a response the user sees; 404 when it has none. */
  async attachment(actor: UserActor, id: string): Promise<LoadedMediaBlob> {
    const row = await this.visible(actor, id);
    const file = row.attachment_id ? await this.blobs.load(row.attachment_id) : undefined;
    if (!file) throw notFound();
    return file;
  }

  /**
   * The response's text with its variables filled for a conversation the user sees: the customer's
   * name and attributes, the user's own name.
   */
  async render(actor: UserActor, id: string, chatId: string): Promise<RenderedCannedT> {
    const row = await this.visible(actor, id);
    const chat = await this.repo.chatForRender(actor.accountId, chatId);
    if (!chat || !(await this.chats.canSee(actor, chat))) throw notFound();
    const attributes = await this.attributes.values(actor.accountId, chat.customer_id);
    const text = renderVariables(row.content, { contactName: chat.name, agentName: actor.name, attributes });
    return { id: row.id, text, attachment: toCanned(row, false).attachment };
  }

  /** One use: the response was inserted in a message that was sent. */
  async use(actor: UserActor, id: string): Promise<CannedUseT> {
    const used = await this.repo.countUse(viewerOf(actor), id);
    if (!used) throw notFound();
    return { id: used.id, usageCount: used.usage_count, lastUsedAt: used.last_used_at.toISOString() };
  }

  private async visible(actor: UserActor, id: string): Promise<CannedRow> {
    const row = await this.repo.find(viewerOf(actor), id);
    if (!row) throw notFound();
    return row;
  }

  /** A response the user sees and may change: else 404 (unseen) or 403. */
  private async managed(actor: UserActor, id: string): Promise<CannedRow> {
    const row = await this.visible(actor, id);
    if (!this.canManage(actor, row, await this.managedTeams(actor))) throw forbidden(MAY_NOT_MANAGE);
    return row;
  }

  private async requireManage(actor: UserActor, scope: CannedScope, teamId: string | null): Promise<void> {
    const managed = await this.managedTeams(actor);
    if (!this.canManage(actor, { scope, team_id: teamId, user_id: actor.userId }, managed)) {
      throw forbidden(MAY_NOT_MANAGE);
    }
  }

  /** The teams whose responses a supervisor manages: their own (admins manage every team's anyway). */
  private async managedTeams(actor: UserActor): Promise<ReadonlySet<string>> {
    if (actor.permissions.has('canned_responses:manage')) return new Set();
    if (!actor.permissions.has('canned_responses:manage_team')) return new Set();
    return new Set(await this.teams.teamsOf(actor.userId));
  }

  private canManage(
    actor: UserActor,
    row: Pick<CannedRow, 'scope' | 'team_id' | 'user_id'>,
    managedTeams: ReadonlySet<string>,
  ): boolean {
    if (row.scope === 'personal') return row.user_id === actor.userId;
    if (actor.permissions.has('canned_responses:manage')) return true;
    return row.scope === 'team' && row.team_id !== null && managedTeams.has(row.team_id);
  }

  /** Every `{{…}}` of `content` must be a variable that exists in this account. */
  private async checkVariables(accountId: string, content: string): Promise<void> {
    const keys = new Set(await this.attributes.keys(accountId));
    const unknown = unknownVariables(content, keys);
    if (unknown.length > 0) throw badRequest([unknownVariablesMessage(unknown, keys)]);
  }

  /** The owner's shortcuts are unique whatever their case: a second one is a 409. */
  private async uniqueShortcut(write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict(SHORTCUT_TAKEN);
      throw err;
    }
  }
}

function viewerOf(actor: UserActor): CannedViewer {
  return {
    accountId: actor.accountId,
    userId: actor.userId,
    allTeams: actor.permissions.has('canned_responses:manage'),
  };
}
