import type { PreparedOrderDetails, ProviderAmount } from '../../providers/types.js';
import { parseAmount } from './amounts.js';
import { isJsonObject } from '../../lib/json-read.js';
import {
  isNonNegativeInteger,
  Issues,
  optionalString,
  requireArray,
  requireEnum,
  requireObject,
  requireString,
} from './field-checks.js';

/**
 * A template button's `orderDetails` (a Pix payment request): reference, payment settings, items
 * and amounts, whose totals must add up.
 */

const REFERENCE_ID = /^[A-Za-z0-9_.-]{1,60}$/;
const ORDER_TYPES = ['digital-goods', 'physical-goods'];
const PAYMENT_TYPES = ['br'];
const CURRENCIES = ['BRL'];
const ORDER_STATUSES = ['pending'];
const PIX_KEY_TYPES = ['CPF', 'CNPJ', 'EMAIL', 'PHONE', 'EVP'];

export function prepareOrderDetails(
  v: unknown,
  path: string,
  issues: Issues,
): PreparedOrderDetails | undefined {
  const obj = requireObject(v, path, issues);
  if (!obj) return undefined;
  const before = issues.list.length;

  const referenceId = requireString(obj.referenceId, `${path}.referenceId`, issues);
  if (referenceId !== undefined && !REFERENCE_ID.test(referenceId)) {
    issues.add(`${path}.referenceId`, `must match ${REFERENCE_ID.source} regular expression`);
  }
  const type = requireEnum(obj.type, `${path}.type`, ORDER_TYPES, issues);
  const paymentType = requireEnum(obj.paymentType, `${path}.paymentType`, PAYMENT_TYPES, issues);
  const currency = requireEnum(obj.currency, `${path}.currency`, CURRENCIES, issues);
  const totalAmount = readAmount(obj.totalAmount, `${path}.totalAmount`, issues);

  const paymentSettings: PreparedOrderDetails['paymentSettings'] = [];
  const settings = requireArray(obj.paymentSettings, `${path}.paymentSettings`, issues);
  settings?.forEach((s, i) => {
    const sPath = `${path}.paymentSettings[${i}]`;
    const setting = requireObject(s, sPath, issues);
    if (!setting) return;
    requireEnum(setting.type, `${sPath}.type`, ['pix_dynamic_code'], issues);
    const pix = requireObject(setting.pixDynamicCode, `${sPath}.pixDynamicCode`, issues);
    if (!pix) return;
    const pPath = `${sPath}.pixDynamicCode`;
    const code = requireString(pix.code, `${pPath}.code`, issues);
    const merchantName = requireString(pix.merchantName, `${pPath}.merchantName`, issues);
    const key = requireString(pix.key, `${pPath}.key`, issues);
    const keyType = requireEnum(pix.keyType, `${pPath}.keyType`, PIX_KEY_TYPES, issues);
    if (code !== undefined && merchantName !== undefined && key !== undefined && keyType !== undefined) {
      paymentSettings.push({
        type: 'pix_dynamic_code',
        pixDynamicCode: { code, merchantName, key, keyType },
      });
    }
  });

  const order = prepareOrder(obj.order, `${path}.order`, issues);

  if (order && totalAmount) {
    checkTotals(order, totalAmount, path, issues);
  }
  if (
    issues.list.length > before ||
    referenceId === undefined ||
    type === undefined ||
    paymentType === undefined ||
    currency === undefined ||
    totalAmount === undefined ||
    order === undefined
  ) {
    return undefined;
  }
  return { referenceId, type, paymentType, currency, totalAmount, paymentSettings, order };
}

function prepareOrder(v: unknown, path: string, issues: Issues): PreparedOrderDetails['order'] | undefined {
  const obj = requireObject(v, path, issues);
  if (!obj) return undefined;
  const before = issues.list.length;
  const status = requireEnum(obj.status, `${path}.status`, ORDER_STATUSES, issues);

  const items: PreparedOrderDetails['order']['items'] = [];
  const list = requireArray(obj.items, `${path}.items`, issues);
  list?.forEach((it, i) => {
    const iPath = `${path}.items[${i}]`;
    const item = requireObject(it, iPath, issues);
    if (!item) return;
    const retailerId = requireString(item.retailerId, `${iPath}.retailerId`, issues);
    const name = requireString(item.name, `${iPath}.name`, issues, 60);
    const amount = readAmount(item.amount, `${iPath}.amount`, issues);
    const quantity = item.quantity;
    let validQuantity: number | undefined;
    if (quantity === undefined || quantity === null) issues.add(`${iPath}.quantity`, 'should not be empty');
    else if (!isNonNegativeInteger(quantity) || quantity < 1) {
      issues.add(`${iPath}.quantity`, 'must be a positive integer');
    } else validQuantity = quantity;
    if (retailerId !== undefined && name !== undefined && amount && validQuantity !== undefined) {
      items.push({ retailerId, name, amount, quantity: validQuantity });
    }
  });

  const subtotal = readAmount(obj.subtotal, `${path}.subtotal`, issues);
  let tax: PreparedOrderDetails['order']['tax'] | undefined;
  if (obj.tax === undefined || obj.tax === null) {
    // The provider is always sent a tax (docs/whatsapp.md): zero, at the subtotal's scale.
    if (subtotal) tax = { value: 0, offset: subtotal.offset };
  } else {
    const amount = readAmount(obj.tax, `${path}.tax`, issues);
    const description = isJsonObject(obj.tax)
      ? optionalString(obj.tax.description, `${path}.tax.description`, issues)
      : undefined;
    if (amount) tax = description ? { ...amount, description } : amount;
  }

  if (issues.list.length > before || status === undefined || !subtotal || !tax) return undefined;
  return { status, items, subtotal, tax };
}

/** subtotal = Σ item amount × quantity and total = subtotal + tax, compared at the finest offset. */
function checkTotals(
  order: PreparedOrderDetails['order'],
  total: ProviderAmount,
  path: string,
  issues: Issues,
): void {
  const amounts = [total, order.subtotal, order.tax, ...order.items.map((i) => i.amount)];
  const scale = amounts.reduce((max, a) => (BigInt(a.offset) > max ? BigInt(a.offset) : max), 1n);
  const at = (a: ProviderAmount) => BigInt(a.value) * (scale / BigInt(a.offset));
  // Both values in the field's own offset when the expected one fits it, else at the common scale.
  const compare = (expected: bigint, got: bigint, offset: number) => {
    const f = scale / BigInt(offset);
    return expected % f === 0n
      ? `expected ${expected / f}, got ${got / f}`
      : `expected ${expected}, got ${got} at offset ${scale}`;
  };

  const subtotal = order.items.reduce((sum, i) => sum + at(i.amount) * BigInt(i.quantity), 0n);
  if (subtotal !== at(order.subtotal)) {
    issues.add(
      `${path}.order.subtotal`,
      `must equal the sum of item amounts times quantities (${compare(subtotal, at(order.subtotal), order.subtotal.offset)})`,
    );
  }
  const expectedTotal = at(order.subtotal) + at(order.tax);
  if (expectedTotal !== at(total)) {
    issues.add(
      `${path}.totalAmount`,
      `must equal order.subtotal plus order.tax (${compare(expectedTotal, at(total), total.offset)})`,
    );
  }
}

function readAmount(v: unknown, path: string, issues: Issues): ProviderAmount | undefined {
  const obj = requireObject(v, path, issues);
  if (!obj) return undefined;
  let missing = false;
  for (const key of ['value', 'offset']) {
    if (obj[key] === undefined || obj[key] === null || obj[key] === '') {
      issues.add(`${path}.${key}`, 'should not be empty');
      missing = true;
    }
  }
  if (missing) return undefined;
  if (typeof obj.offset !== 'number') {
    issues.add(`${path}.offset`, 'must be an integer number');
    return undefined;
  }
  if (typeof obj.value !== 'number' && typeof obj.value !== 'string') {
    issues.add(`${path}.value`, 'must be an integer or a decimal string');
    return undefined;
  }
  const parsed = parseAmount(obj.value, obj.offset, path);
  if (!parsed.ok) {
    issues.worded(parsed.message);
    return undefined;
  }
  return { value: parsed.value, offset: obj.offset };
}
