import type { CustomerAttributesRepo } from './customer-attributes.js';
import type { CustomersRepo } from './customers.repo.js';

/**
 * The account's attribute keys and one customer's values as text, for whatever fills
 * `{{contact.attributes.<key>}}` (canned responses): the same definitions the contact panel validates.
 */
export class CustomerAttributeLookup {
  constructor(
    private readonly definitions: CustomerAttributesRepo,
    private readonly customers: CustomersRepo,
  ) {}

  async keys(accountId: string): Promise<string[]> {
    return (await this.definitions.list(accountId)).map((d) => d.key);
  }

  async values(accountId: string, customerId: string): Promise<Record<string, string>> {
    const row = await this.customers.find({ accountId }, customerId);
    const out: Record<string, string> = {};
    for (const [key, value] of Object.entries(row?.attributes ?? {})) out[key] = String(value);
    return out;
  }
}
