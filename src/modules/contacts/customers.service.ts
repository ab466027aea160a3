import type { Db, Tx } from '../../db/index.js';
import { changedFields, type AuditService } from '../audit/index.js';
import type { CustomerAttributeValues } from '../../db/types.js';
import type { EventBuffer, EventsService } from '../../events/events.service.js';
import { targets } from '../../events/rooms.js';
import { badRequest, notFound } from '../../http/errors.js';
import { en, type Text } from '../../http/language.js';
import { pageInfo } from '../../http/schemas.js';
import { newId } from '../../lib/ids.js';
import type { UserActor } from '../../access/actors.js';
import { requirePermission } from '../../access/guards.js';
import type { TeamsRepo } from '../teams/index.js';
import {
  applyAttributeChanges,
  checkAttributeValue,
  type CustomerAttributesService,
} from './customer-attributes.js';
import type {
  CustomerFilter,
  CustomerRow,
  CustomerScope,
  CustomerSearch,
  CustomersRepo,
} from './customers.repo.js';
import {
  CUSTOMER_MERGE,
  CUSTOMER_UPDATE,
  MAX_ATTRIBUTE_FILTERS,
  type CustomerT,
  type ListCustomersQueryT,
  type UpdateCustomerInput,
} from './customers.schemas.js';

export const MERGE_SELF = en(
  'A customer cannot be merged into itself',
  'Um cliente não pode ser unido a ele mesmo',
);
export const MERGE_UNKNOWN = en(
  'customerId is not a customer of the account',
  'customerId não é um cliente da conta',
);

/** A customer row as the API shows it. */
export function toCustomer(r: CustomerRow): CustomerT {
  return {
    id: r.id,
    name: r.name ?? r.identities[0]?.value ?? '',
    createdAt: r.created_at.toISOString(),
    lastSeenAt: r.last_seen_at ? new Date(r.last_seen_at).toISOString() : null,
    identities: r.identities,
    attributes: r.attributes,
    labels: r.labels,
  };
}

/**
 * Customers as agents see them: who may see one (admins and supervisors, with chats:read_all, every
 * customer of the account; agents those with a chat they may see — of one of their teams, or one they
 * attend), reading, the contacts page's list, changing name and attributes, and an admin's merge.
 */
export class CustomersService {
  constructor(
    private readonly db: Db,
    private readonly repo: CustomersRepo,
    private readonly attributes: CustomerAttributesService,
    private readonly teams: TeamsRepo,
    private readonly events: EventsService,
    private readonly audit: AuditService,
  ) {}

  /** The customers the user may see. */
  async scope(actor: UserActor): Promise<CustomerScope> {
    if (actor.permissions.has('chats:read_all')) return { accountId: actor.accountId };
    return {
      accountId: actor.accountId,
      visibleTo: { teamIds: await this.teams.teamsOf(actor.userId), userId: actor.userId },
    };
  }

  async get(actor: UserActor, id: string): Promise<CustomerT> {
    const row = await this.repo.find(await this.scope(actor), id);
    if (!row) throw notFound();
    return toCustomer(row);
  }

  /** 404 unless the user may see the customer (notes and other sub-resources ask this first). */
  async assertVisible(actor: UserActor, id: string): Promise<void> {
    await this.get(actor, id);
  }

  async list(actor: UserActor, query: ListCustomersQueryT) {
    const page = query.page ?? 1;
    const limit = query.limit ?? 20;
    const { rows, total } = await this.repo.listPage(
      await this.scope(actor),
      await this.filter(actor.accountId, query),
      page,
      limit,
    );
    return { ...pageInfo(total, page, limit), customers: rows.map(toCustomer) };
  }

  /**
   * What a CSV export of the list reads, once its line is in the audit log: who took the contacts,
   * with the filters' names only (a search's text may be a person's name).
   */
  async exportOf(actor: UserActor, query: ListCustomersQueryT) {
    const scope = await this.scope(actor);
    const filter = await this.filter(actor.accountId, query);
    await this.audit.recordDownload(actor, {
      action: 'contact.export_csv',
      target: { type: 'account', id: actor.accountId },
      details: { filters: changedFields(query) },
    });
    return { scope, filter };
  }

  /** A list's filter from its query: the search, the label, the attributes typed by their definitions. */
  async filter(accountId: string, query: ListCustomersQueryT): Promise<CustomerFilter> {
    const f: CustomerFilter = {};
    const search = query.q === undefined ? undefined : customerSearch(query.q);
    if (search) f.search = search;
    if (query.label !== undefined) f.labelId = query.label;
    const wanted = Object.entries(query).filter(([k]) => k.startsWith('attr.'));
    if (wanted.length > MAX_ATTRIBUTE_FILTERS)
      throw badRequest(
        en(
          `At most ${MAX_ATTRIBUTE_FILTERS} attribute filters`,
          `No máximo ${MAX_ATTRIBUTE_FILTERS} filtros de atributo`,
        ),
      );
    if (wanted.length > 0) {
      const defs = await this.attributes.byKey(accountId);
      const values: CustomerAttributeValues = {};
      const problems: Text[] = [];
      for (const [name, raw] of wanted) {
        const key = name.slice('attr.'.length);
        const checked = checkAttributeValue(defs.get(key), key, raw);
        if (checked.ok) values[key] = checked.value;
        else problems.push(checked.message);
      }
      if (problems.length > 0) throw badRequest(problems);
      f.attributes = values;
    }
    return f;
  }

  /** Name and attribute values, by anyone who may see the customer; `customer.update` to its watchers. */
  async update(actor: UserActor, id: string, input: UpdateCustomerInput): Promise<CustomerT> {
    const scope = await this.scope(actor);
    return this.events.transaction(async (tx, events) => {
      if (!(await this.repo.find(scope, id, tx))) throw notFound();
      const row = await this.repo.lock(tx, actor.accountId, id);
      if (!row) throw notFound();
      const patch: { name?: string | null; attributes?: CustomerAttributeValues } = {};
      if (input.name !== undefined)
        patch.name = input.name === null || input.name.trim() === '' ? null : input.name.trim();
      if (input.attributes !== undefined) {
        const defs = await this.attributes.byKey(actor.accountId, tx);
        patch.attributes = applyAttributeChanges(defs, row.attributes, input.attributes);
      }
      await this.repo.update(tx, id, patch);
      return this.changed(tx, events, actor.accountId, id);
    });
  }

  /**
   * Records `customer.update` for a customer changed in `tx` (to the rooms of its chats) and answers
   * it as it is now.
   */
  async changed(tx: Tx, events: EventBuffer, accountId: string, id: string): Promise<CustomerT> {
    const row = await this.repo.find({ accountId }, id, tx);
    if (!row) throw notFound();
    const customer = toCustomer(row);
    events.add(accountId, CUSTOMER_UPDATE, { customer }, targets.customer(await this.repo.place([id], tx)));
    return customer;
  }

  /**
   * An admin merges customer `otherId` into `id`: every contact (and so every conversation), label and
   * note of the other becomes this one's, its attribute values fill those this one lacks, the merge is
   * recorded (`customer_merges`) and the other customer ceases to exist. `customer.merge` goes to the
   * rooms of both customers' chats.
   */
  async merge(actor: UserActor, id: string, otherId: string): Promise<CustomerT> {
    requirePermission(actor, 'customers:manage');
    if (id === otherId) throw badRequest(MERGE_SELF);
    return this.events.transaction(async (tx, events) => {
      // Locked in id order, so two merges of the same pair cannot deadlock.
      const [first, second] = [id, otherId].sort();
      const a = await this.repo.lock(tx, actor.accountId, first!);
      const b = await this.repo.lock(tx, actor.accountId, second!);
      const into = a?.id === id ? a : b?.id === id ? b : undefined;
      const from = a?.id === otherId ? a : b?.id === otherId ? b : undefined;
      if (!into) throw notFound();
      if (!from) throw badRequest(MERGE_UNKNOWN);
      const place = await this.repo.place([id, otherId], tx);
      await this.repo.merge(tx, {
        id: newId(),
        accountId: actor.accountId,
        into: id,
        from: { id: from.id, name: from.name, attributes: from.attributes },
        actorId: actor.userId,
      });
      // Ids only: a name or number here would outlive the person's erasure.
      await this.audit.record(tx, actor, {
        action: 'contact.merge',
        target: { type: 'contact', id },
        details: { mergedContactId: otherId },
      });
      const row = await this.repo.find({ accountId: actor.accountId }, id, tx);
      const customer = toCustomer(row!);
      events.add(
        actor.accountId,
        CUSTOMER_MERGE,
        { customer, mergedCustomerId: otherId },
        targets.customer(place),
      );
      return customer;
    });
  }
}

/**
 * What a contacts-page search means: something written like a phone number (digits with spaces, `+`,
 * `-`, dots or parentheses) finds those digits in a number, however it was typed; anything else the
 * name or an address. Blank searches for nothing.
 */
export function customerSearch(q: string): CustomerSearch | undefined {
  const term = q.trim();
  if (term === '') return undefined;
  if (/^[\d\s+().-]+$/.test(term) && /\d/.test(term))
    return { kind: 'number', digits: term.replace(/\D/g, '') };
  return { kind: 'text', text: term };
}
