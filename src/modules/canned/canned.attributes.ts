/**
 * The customers' custom attributes as canned responses see them: the keys an account defines (what
 * `{{contact.attributes.<key>}}` may name) and one customer's values (what fills them). Given to the
 * service by the wiring, so the check follows the account's attribute definitions.
 */
export interface CustomerAttributes {
  keys(accountId: string): Promise<string[]>;
  values(accountId: string, customerId: string): Promise<Record<string, string>>;
}

/** No attribute is defined: every `{{contact.attributes.…}}` is refused (for tools and tests). */
export const NO_CUSTOMER_ATTRIBUTES: CustomerAttributes = {
  keys: async () => [],
  values: async () => ({}),
};
