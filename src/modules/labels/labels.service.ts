import type { Tx } from '../../db/index.js';
import type { AuditService } from '../audit/index.js';
import type { EventsService } from '../../events/events.service.js';
import { targets } from '../../events/rooms.js';
import { badRequest, conflict, notFound } from '../../http/errors.js';
import { pt } from '../../http/language.js';
import { newId } from '../../lib/ids.js';
import type { UserActor } from '../../access/actors.js';
import { requirePermission } from '../../access/guards.js';
import { toChat, type ChatsRepo, type ChatsService, type ChatT, type LabelRefT } from '../chats/index.js';
import { isNameTaken, type LabelRow, type LabelsRepo } from './labels.repo.js';
import { toLabel } from './labels.presenter.js';
import {
  CHAT_LABELS,
  CUSTOMER_LABELS,
  LABEL_CREATE,
  LABEL_DELETE,
  LABEL_UPDATE,
  MAX_LABELS,
  type CreateLabelInput,
  type CustomerLabelsT,
  type LabelT,
  type UpdateLabelInput,
} from './labels.schemas.js';

export const LABEL_NAME_TAKEN = pt(
  'Já existe uma etiqueta com este nome',
  'A label with this name already exists',
);
export const TOO_MANY_LABELS = pt(
  `A conta já tem ${MAX_LABELS} etiquetas, o máximo`,
  `The account already has ${MAX_LABELS} labels, the most it may have`,
);

export const UNKNOWN_LABELS = pt('Etiqueta não encontrada nesta conta', 'Label not found in this account');

/** Labels put on and taken off a chat together (one bulk action's): resolved once by `resolveLabels`. */
export interface ChatLabelChange {
  add: readonly LabelRow[];
  remove: readonly LabelRow[];
}

/** Most open chats of one customer whose watchers hear of the customer's labels. */
const CUSTOMER_CHATS_NOTIFIED = 50;

/** Postgres' foreign_key_violation: the label went while it was being put on something. */
const isGone = (err: unknown) => (err as { code?: string }).code === '23503';

const ref = (l: LabelRow): LabelRefT => ({ id: l.id, name: l.name, color: l.color });

/**
 * Labels: admins define them (`labels:manage`); any user of the account reads them; whoever may see a
 * chat or a customer puts them on it and takes them off. Every change is an event of the log.
 */
export class LabelsService {
  constructor(
    private readonly repo: LabelsRepo,
    private readonly chats: ChatsService,
    private readonly chatsRepo: ChatsRepo,
    private readonly events: EventsService,
    private readonly audit: AuditService,
  ) {}

  async list(actor: UserActor): Promise<LabelT[]> {
    return (await this.repo.list(actor.accountId, MAX_LABELS)).map(toLabel);
  }

  async get(actor: UserActor, id: string): Promise<LabelT> {
    const row = await this.repo.find(actor.accountId, id);
    if (!row) throw notFound();
    return toLabel(row);
  }

  async create(actor: UserActor, input: CreateLabelInput): Promise<LabelT> {
    requirePermission(actor, 'labels:manage');
    return this.named(() =>
      this.events.transaction(async (tx, events) => {
        if ((await this.repo.count(tx, actor.accountId)) >= MAX_LABELS) throw badRequest(TOO_MANY_LABELS);
        const row = await this.repo.insert(tx, {
          id: newId(),
          account_id: actor.accountId,
          name: input.name.trim(),
          color: input.color.toLowerCase(),
          description: input.description ?? null,
        });
        await this.audit.record(tx, actor, {
          action: 'label.create',
          target: { type: 'label', id: row.id },
          details: { name: row.name, color: row.color },
        });
        const label = toLabel(row);
        events.add(actor.accountId, LABEL_CREATE, { label }, targets.account(actor.accountId));
        return label;
      }),
    );
  }

  async update(actor: UserActor, id: string, input: UpdateLabelInput): Promise<LabelT> {
    requirePermission(actor, 'labels:manage');
    const patch = {
      ...(input.name !== undefined ? { name: input.name.trim() } : {}),
      ...(input.color !== undefined ? { color: input.color.toLowerCase() } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
    };
    return this.named(() =>
      this.events.transaction(async (tx, events) => {
        const row = await this.repo.update(tx, actor.accountId, id, patch);
        if (!row) throw notFound();
        await this.audit.record(tx, actor, {
          action: 'label.update',
          target: { type: 'label', id },
          details: {
            changed: Object.keys(patch).sort(),
            ...(patch.name !== undefined && { name: patch.name }),
            ...(patch.color !== undefined && { color: patch.color }),
          },
        });
        const label = toLabel(row);
        events.add(actor.accountId, LABEL_UPDATE, { label }, targets.account(actor.accountId));
        return label;
      }),
    );
  }

  async delete(actor: UserActor, id: string): Promise<void> {
    requirePermission(actor, 'labels:manage');
    await this.events.transaction(async (tx, events) => {
      const row = await this.repo.delete(tx, actor.accountId, id);
      if (!row) throw notFound();
      await this.audit.record(tx, actor, {
        action: 'label.delete',
        target: { type: 'label', id },
        details: { name: row.name },
      });
      events.add(actor.accountId, LABEL_DELETE, { label: toLabel(row) }, targets.account(actor.accountId));
    });
  }

  /** Puts the label on a chat the user may see (already there: no change, no event); the chat after. */
  async addToChat(actor: UserActor, chatId: string, labelId: string): Promise<ChatT> {
    return this.changeChat(actor, chatId, labelId, 'added');
  }

  /** Takes the label off a chat the user may see (not there: no change, no event); the chat after. */
  async removeFromChat(actor: UserActor, chatId: string, labelId: string): Promise<ChatT> {
    return this.changeChat(actor, chatId, labelId, 'removed');
  }

  /**
   * The account's labels with these ids, for changing many chats' labels at once; an id that is not
   * one of them is a 400 for the whole request (every chat would fail alike).
   */
  async resolveLabels(
    actor: UserActor,
    ids: { add: readonly string[]; remove: readonly string[] },
  ): Promise<ChatLabelChange> {
    const rows = await this.repo.findMany(actor.accountId, [...new Set([...ids.add, ...ids.remove])]);
    const byId = new Map(rows.map((r) => [r.id, r]));
    const pick = (list: readonly string[]) =>
      list.map((id) => {
        const row = byId.get(id);
        if (!row) throw badRequest(UNKNOWN_LABELS);
        return row;
      });
    return { add: pick(ids.add), remove: pick(ids.remove) };
  }

  /**
   * Puts labels on a chat the user may see and takes others off, in one transaction, with a
   * `chat.labels` event per link that changed — what `addToChat`/`removeFromChat` do one at a time.
   */
  async changeChatLabels(actor: UserActor, chatId: string, change: ChatLabelChange): Promise<ChatT> {
    const seen = await this.chatsRepo.find(actor.accountId, chatId);
    if (!seen || !(await this.chats.canSee(actor, seen))) throw notFound();
    return this.present(() =>
      this.events.transaction(async (tx, events) => {
        const changed: { label: LabelRow; action: 'added' | 'removed' }[] = [];
        for (const label of change.add) {
          if (await this.repo.addToChat(tx, actor.accountId, chatId, label.id, actor.userId))
            changed.push({ label, action: 'added' });
        }
        for (const label of change.remove) {
          if (await this.repo.removeFromChat(tx, chatId, label.id))
            changed.push({ label, action: 'removed' });
        }
        if (changed.length > 0) await this.chatsRepo.touch(tx, chatId);
        const row = await this.chatsRepo.find(actor.accountId, chatId, tx);
        if (!row) throw notFound();
        const chat = toChat(row);
        for (const { label, action } of changed) {
          events.add(
            actor.accountId,
            CHAT_LABELS,
            { chat, label: ref(label), action, by: { type: 'user', id: actor.userId } },
            targets.chatLabels(chat),
          );
        }
        return chat;
      }),
    );
  }

  async addToCustomer(actor: UserActor, customerId: string, labelId: string): Promise<CustomerLabelsT> {
    return this.changeCustomer(actor, customerId, labelId, 'added');
  }

  async removeFromCustomer(actor: UserActor, customerId: string, labelId: string): Promise<CustomerLabelsT> {
    return this.changeCustomer(actor, customerId, labelId, 'removed');
  }

  private async changeChat(
    actor: UserActor,
    chatId: string,
    labelId: string,
    action: 'added' | 'removed',
  ): Promise<ChatT> {
    const [label, seen] = await Promise.all([
      this.repo.find(actor.accountId, labelId),
      this.chatsRepo.find(actor.accountId, chatId),
    ]);
    if (!label || !seen || !(await this.chats.canSee(actor, seen))) throw notFound();
    return this.present(() =>
      this.events.transaction(async (tx, events) => {
        const changed =
          action === 'added'
            ? await this.repo.addToChat(tx, actor.accountId, chatId, labelId, actor.userId)
            : await this.repo.removeFromChat(tx, chatId, labelId);
        if (changed) await this.chatsRepo.touch(tx, chatId);
        const row = await this.chatsRepo.find(actor.accountId, chatId, tx);
        if (!row) throw notFound();
        const chat = toChat(row);
        if (changed)
          events.add(
            actor.accountId,
            CHAT_LABELS,
            { chat, label: ref(label), action, by: { type: 'user', id: actor.userId } },
            targets.chatLabels(chat),
          );
        return chat;
      }),
    );
  }

  private async changeCustomer(
    actor: UserActor,
    customerId: string,
    labelId: string,
    action: 'added' | 'removed',
  ): Promise<CustomerLabelsT> {
    const viewer = { userId: actor.userId, readAll: actor.permissions.has('chats:read_all') };
    const [label, visible] = await Promise.all([
      this.repo.find(actor.accountId, labelId),
      this.repo.customerVisible(actor.accountId, customerId, viewer),
    ]);
    if (!label || !visible) throw notFound();
    return this.present(() =>
      this.events.transaction(async (tx: Tx, events) => {
        const changed =
          action === 'added'
            ? await this.repo.addToCustomer(tx, actor.accountId, customerId, labelId, actor.userId)
            : await this.repo.removeFromCustomer(tx, customerId, labelId);
        const out = { customerId, labels: await this.repo.customerLabels(customerId, tx) };
        if (changed) {
          const chats = await this.repo.customerOpenChats(
            actor.accountId,
            customerId,
            CUSTOMER_CHATS_NOTIFIED,
            tx,
          );
          events.add(
            actor.accountId,
            CUSTOMER_LABELS,
            { ...out, label: ref(label), action },
            targets.customerChats(chats),
          );
        }
        return out;
      }),
    );
  }

  /** A write that may meet another label's name: 409. */
  private async named<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (isNameTaken(err)) throw conflict(LABEL_NAME_TAKEN);
      throw err;
    }
  }

  /** A link written while its label was deleted: 404, as if the label had gone first. */
  private async present<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (isGone(err)) throw notFound();
      throw err;
    }
  }
}
