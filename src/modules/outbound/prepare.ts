import type {
  MediaKind,
  OutboundLimits,
  PreparedMedia,
  PreparedMessage,
  PreparedOrderDetails,
  PreparedTemplate,
  ProviderAmount,
  TemplateParam,
} from '../../providers/types.js';
import type { DecodedBase64 } from '../../lib/base64-stream.js';
import { parseAmount } from './amounts.js';
import type { SendMessage } from './send.types.js';

/**
 * Request-time checks of a send-message `message` (docs/channel-api.md) against the limits of the
 * channel's provider: everything that can be judged before answering 201 is judged here, so that only what the provider alone knows (template approved,
 * 24-hour window) can fail in the background. Pure: no I/O, no clock.
 */

export const TEMPLATE_LANGUAGE_DEFAULT = 'pt_BR';

/** A media message as judged at request time: the upload to the provider happens later. */
export type RequestMedia = Omit<PreparedMedia, 'mediaId'> & {
  /** Size of the decoded file; the base64 itself stays with the caller. */
  byteLength: number;
  mediaType?: string;
};

export type RequestMessage =
  Exclude<PreparedMessage, { type: 'media' }> | { type: 'media'; media: RequestMedia };

export type PrepareResult = { ok: true; prepared: RequestMessage } | { ok: false; messages: string[] };

export interface PrepareOptions {
  /** Put before every property path, e.g. `message.` when the route reports body paths. */
  pathPrefix?: string;
  /**
   * The media's base64 as the request body streamed it (src/http/json-body.ts): its text never reached
   * the message, whose `media.base64` is then `""`.
   */
  base64?: Base64Text;
}

/** What is judged of a base64 text streamed rather than held (a `DecodedBase64` without its bytes). */
export type Base64Text = Pick<DecodedBase64, 'length' | 'decodedLength' | 'dataPrefix'>;

const NAMED_PARAMETER = /^[a-z_][a-z0-9_]*$/;
const REFERENCE_ID = /^[A-Za-z0-9_.-]{1,60}$/;
const ORDER_TYPES = ['digital-goods', 'physical-goods'];
const PAYMENT_TYPES = ['br'];
const CURRENCIES = ['BRL'];
const ORDER_STATUSES = ['pending'];
const PIX_KEY_TYPES = ['CPF', 'CNPJ', 'EMAIL', 'PHONE', 'EVP'];
const HEADER_FORMATS = ['image', 'video', 'document'] as const;

type Json = Record<string, unknown>;

/** Collects the 400 sentences; paths are reported with the caller's prefix. */
class Issues {
  readonly list: string[] = [];
  constructor(private readonly prefix: string) {}
  add(path: string, sentence: string): void {
    this.list.push(`${this.prefix}${path} ${sentence}`);
  }
  /** A sentence that already starts with its path (from parseAmount). */
  worded(sentence: string): void {
    this.list.push(`${this.prefix}${sentence}`);
  }
  /** A sentence the contract fixes word for word, without a path. */
  exact(sentence: string): void {
    this.list.push(sentence);
  }
}

export function prepareMessage(
  message: SendMessage,
  limits: OutboundLimits,
  options: PrepareOptions = {},
): PrepareResult {
  const prefix = options.pathPrefix ?? '';
  const issues = new Issues(prefix);
  const m: unknown = message;
  if (!isObject(m)) {
    return { ok: false, messages: [`${prefix ? prefix.replace(/\.$/, '') : 'message'} must be an object`] };
  }
  let prepared: RequestMessage | undefined;
  switch (m.type) {
    case 'text': {
      const text = prepareText(m.text, limits, issues);
      if (text !== undefined) prepared = { type: 'text', text };
      break;
    }
    case 'media': {
      const media = prepareMedia(m.media, limits, issues, options.base64);
      if (media) prepared = { type: 'media', media };
      break;
    }
    case 'template': {
      const template = prepareTemplate(m.template, issues);
      if (template) prepared = { type: 'template', template };
      break;
    }
    case undefined:
    case null:
      issues.add('type', 'should not be empty');
      break;
    default:
      issues.add('type', 'must be one of the following values: text, template, media');
  }
  if (issues.list.length > 0 || !prepared) return { ok: false, messages: issues.list };
  return { ok: true, prepared };
}

// ---------------------------------------------------------------- text

function prepareText(v: unknown, limits: OutboundLimits, issues: Issues): string | undefined {
  const obj = requireObject(v, 'text', issues);
  if (!obj) return undefined;
  const value = requireString(obj.value, 'text.value', issues, limits.textMaxLength);
  optionalString(obj.pushName, 'text.pushName', issues);
  return value;
}

// ---------------------------------------------------------------- media

/** A size as people write it: `5 MB` for whole megabytes (of 1,048,576 bytes), else `500 KB`. */
function sizeLabel(bytes: number): string {
  const MB = 1024 * 1024;
  return bytes % MB === 0 ? `${bytes / MB} MB` : `${bytes / 1024} KB`;
}

function prepareMedia(
  v: unknown,
  limits: OutboundLimits,
  issues: Issues,
  streamed: Base64Text | undefined,
): RequestMedia | undefined {
  const { mediaTypes, mediaMaxBytes } = limits;
  const obj = requireObject(v, 'media', issues);
  if (!obj) return undefined;
  const before = issues.list.length;

  if (obj.mediaUrl !== undefined && obj.mediaUrl !== null && obj.mediaUrl !== '') {
    issues.add('media.mediaUrl', 'is not accepted; send media.base64');
  }

  let byteLength: number | null = null;
  const base64 = obj.base64;
  if (streamed && base64 === '') {
    if (streamed.length === 0) issues.exact('Base64 payload is required');
    else if (streamed.dataPrefix) issues.add('media.base64', 'must not have a data: prefix');
    else if (streamed.decodedLength === null) issues.add('media.base64', 'must be base64 encoded');
    else byteLength = streamed.decodedLength;
  } else if (base64 === undefined || base64 === null || base64 === '') {
    issues.exact('Base64 payload is required');
  } else if (typeof base64 !== 'string') {
    issues.add('media.base64', 'must be a string');
  } else if (/^data:/i.test(base64)) {
    issues.add('media.base64', 'must not have a data: prefix');
  } else {
    byteLength = base64DecodedLength(base64);
    if (byteLength === null) issues.add('media.base64', 'must be base64 encoded');
  }

  let kind: MediaKind | undefined;
  let mimetype: string | undefined;
  const rawMime = requireString(obj.mimetype, 'media.mimetype', issues);
  if (rawMime !== undefined) {
    // Parameters such as `; codecs=opus` do not change the kind; the provider gets the bare type.
    mimetype = (rawMime.split(';')[0] ?? '').trim().toLowerCase();
    kind = Object.hasOwn(mediaTypes, mimetype) ? mediaTypes[mimetype] : undefined;
    if (!kind) {
      issues.add(
        'media.mimetype',
        `must be one of the following values: ${Object.keys(mediaTypes).join(', ')}`,
      );
    }
  }

  if (kind && byteLength !== null && byteLength > mediaMaxBytes[kind]) {
    issues.add(
      'media.base64',
      `must decode to at most ${sizeLabel(mediaMaxBytes[kind])} (${mediaMaxBytes[kind]} bytes) for ${kind}, got ${byteLength} bytes`,
    );
  }

  const caption = optionalString(obj.caption, 'media.caption', issues, limits.captionMaxLength);
  if (caption && (kind === 'audio' || kind === 'sticker')) {
    issues.add('media.caption', `is not allowed for ${kind}`);
  }
  const filename = optionalString(obj.filename, 'media.filename', issues);
  const mediaType = optionalString(obj.mediaType, 'media.mediaType', issues);

  if (issues.list.length > before || !kind || !mimetype || byteLength === null) return undefined;
  return {
    kind,
    mimetype,
    byteLength,
    ...(filename ? { filename } : {}),
    ...(caption ? { caption } : {}),
    ...(mediaType ? { mediaType } : {}),
  };
}

/**
 * Decoded size of strict base64 (standard alphabet, `=` padding to a multiple of 4, no whitespace,
 * zero unused bits), or null when it is not that. Counted, not decoded: payloads reach 100 MB.
 */
export function base64DecodedLength(s: string): number | null {
  if (s.length === 0 || s.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(s)) return null;
  const pad = s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0;
  if (pad > 0) {
    const sextet = BASE64_ALPHABET.indexOf(s.charAt(s.length - pad - 1));
    if ((pad === 2 && (sextet & 0x0f) !== 0) || (pad === 1 && (sextet & 0x03) !== 0)) return null;
  }
  return (s.length / 4) * 3 - pad;
}
const BASE64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

// ---------------------------------------------------------------- template

function prepareTemplate(v: unknown, issues: Issues): PreparedTemplate | undefined {
  const obj = requireObject(v, 'template', issues);
  if (!obj) return undefined;
  const before = issues.list.length;

  const name = requireString(obj.name, 'template.name', issues);
  let language = TEMPLATE_LANGUAGE_DEFAULT;
  if (obj.language !== undefined && obj.language !== null) {
    const given = requireString(obj.language, 'template.language', issues);
    if (given !== undefined) language = given;
  }

  let header: TemplateParam[] = [];
  let body: TemplateParam[] = [];
  let urlButtons: PreparedTemplate['urlButtons'] = [];
  const vars = obj.variables;
  if (Array.isArray(vars)) {
    body = resolveComponent(vars, 'template.variables', issues);
  } else if (isObject(vars)) {
    const list = (key: string): unknown[] => {
      const value = vars[key];
      if (value === undefined || value === null) return [];
      if (Array.isArray(value)) return value;
      issues.add(`template.variables.${key}`, 'must be an array');
      return [];
    };
    header = resolveComponent(list('header'), 'template.variables.header', issues);
    body = resolveComponent(list('body'), 'template.variables.body', issues);
    urlButtons = resolveUrlButtons(list('buttons'), 'template.variables.buttons', issues);
  } else if (vars !== undefined && vars !== null) {
    issues.add('template.variables', 'must be an object or an array');
  }

  const mediaHeader = prepareMediaHeader(obj.mediaHeader, issues);
  if (mediaHeader && header.length > 0) {
    issues.add('template.variables.header', 'must be empty when template.mediaHeader is given');
  }

  const orderDetails: PreparedTemplate['orderDetails'] = [];
  const buttons = obj.buttons;
  if (Array.isArray(buttons)) {
    const used = new Set(urlButtons.map((b) => b.index));
    buttons.forEach((b, i) => {
      const path = `template.buttons[${i}]`;
      const button = requireObject(b, path, issues);
      if (!button) return;
      const index = button.index;
      let validIndex: number | undefined;
      if (index === undefined || index === null) issues.add(`${path}.index`, 'should not be empty');
      else if (!isNonNegativeInteger(index)) issues.add(`${path}.index`, 'must be a non-negative integer');
      else if (used.has(index)) issues.add(`${path}.index`, `${index} is already used by another button`);
      else {
        used.add(index);
        validIndex = index;
      }
      requireEnum(button.type, `${path}.type`, ['order_details'], issues);
      const details = prepareOrderDetails(button.orderDetails, `${path}.orderDetails`, issues);
      if (details && validIndex !== undefined)
        orderDetails.push({ index: validIndex, orderDetails: details });
    });
  } else if (buttons !== undefined && buttons !== null) {
    issues.add('template.buttons', 'must be an array');
  }

  if (issues.list.length > before || name === undefined) return undefined;
  return {
    name,
    language,
    header,
    body,
    urlButtons,
    ...(mediaHeader ? { mediaHeader } : {}),
    orderDetails,
  };
}

interface Placeholder {
  param: TemplateParam;
  correlationId?: number;
  path: string;
}

/** One template variable → its text and how it is placed; undefined (with issues) when invalid. */
function readVariable(item: unknown, path: string, issues: Issues): Placeholder | undefined {
  if (typeof item === 'string') {
    if (item.trim() === '') {
      issues.add(path, 'should not be empty');
      return undefined;
    }
    return { param: { text: item }, path };
  }
  if (!isObject(item)) {
    issues.add(path, 'must be a string or an object with a value');
    return undefined;
  }
  const text = requireString(item.value, `${path}.value`, issues);
  let parameterName: string | undefined;
  if (item.key !== undefined && item.key !== null) {
    if (typeof item.key !== 'string' || !NAMED_PARAMETER.test(item.key)) {
      issues.add(`${path}.key`, `must match ${NAMED_PARAMETER.source} regular expression`);
      return undefined;
    }
    parameterName = item.key;
  }
  let correlationId: number | undefined;
  if (item.correlationId !== undefined && item.correlationId !== null) {
    if (!isNonNegativeInteger(item.correlationId) || item.correlationId < 1) {
      issues.add(`${path}.correlationId`, 'must be a positive integer');
      return undefined;
    }
    correlationId = item.correlationId;
  }
  if (text === undefined) return undefined;
  return {
    param: parameterName !== undefined ? { text, parameterName } : { text },
    ...(correlationId !== undefined ? { correlationId } : {}),
    path,
  };
}

/**
 * The values of one component in the order the provider wants: named values keep their order
 * (the provider matches them by name); positional ones go to the slot their `correlationId` names
 * and the rest fill the remaining slots in array order.
 */
function resolveComponent(values: unknown[], path: string, issues: Issues): TemplateParam[] {
  const before = issues.list.length;
  const read = values.map((item, i) => readVariable(item, `${path}[${i}]`, issues));
  if (issues.list.length > before) return [];
  const all = read.filter((p): p is Placeholder => p !== undefined);
  const named = all.filter((p) => p.param.parameterName !== undefined);
  if (named.length > 0 && named.length < all.length) {
    // A template is either named or positional at the provider; a mix can never be sent.
    issues.add(path, 'must not mix named values (with key) and positional ones');
    return [];
  }
  if (named.length > 0) {
    const seen = new Map<string, string>();
    for (const p of named) {
      const name = p.param.parameterName ?? '';
      const first = seen.get(name);
      if (first !== undefined) issues.add(`${p.path}.key`, `repeats ${first}.key`);
      else seen.set(name, p.path);
    }
    return issues.list.length > before ? [] : named.map((p) => p.param);
  }
  const slots: Array<TemplateParam | undefined> = new Array<TemplateParam | undefined>(all.length);
  for (const p of all) {
    if (p.correlationId === undefined) continue;
    if (p.correlationId > all.length) {
      issues.add(
        `${p.path}.correlationId`,
        `must not be greater than ${all.length} (the number of values in ${path})`,
      );
    } else if (slots[p.correlationId - 1]) {
      issues.add(`${p.path}.correlationId`, `${p.correlationId} is used by another value`);
    } else {
      slots[p.correlationId - 1] = p.param;
    }
  }
  if (issues.list.length > before) return [];
  let free = 0;
  for (const p of all) {
    if (p.correlationId !== undefined) continue;
    while (slots[free]) free++;
    slots[free] = p.param;
  }
  return slots.filter((p): p is TemplateParam => p !== undefined);
}

/** `variables.buttons[i]` → the one parameter of the `url` button at `correlationId - 1`, else `i`. */
function resolveUrlButtons(values: unknown[], path: string, issues: Issues): PreparedTemplate['urlButtons'] {
  const out: PreparedTemplate['urlButtons'] = [];
  const used = new Set<number>();
  values.forEach((item, i) => {
    const p = readVariable(item, `${path}[${i}]`, issues);
    if (!p) return;
    const index = p.correlationId !== undefined ? p.correlationId - 1 : i;
    if (used.has(index)) {
      issues.add(`${path}[${i}]`, `targets button index ${index}, which already has a value`);
      return;
    }
    used.add(index);
    out.push({ index, params: [p.param] });
  });
  return out.sort((a, b) => a.index - b.index);
}

function prepareMediaHeader(v: unknown, issues: Issues): PreparedTemplate['mediaHeader'] | undefined {
  if (v === undefined || v === null) return undefined;
  const path = 'template.mediaHeader';
  const obj = requireObject(v, path, issues);
  if (!obj) return undefined;
  const before = issues.list.length;
  const format = requireEnum(obj.format, `${path}.format`, HEADER_FORMATS, issues);
  const link = optionalString(obj.link, `${path}.link`, issues);
  const fileId = optionalString(obj.fileId, `${path}.fileId`, issues);
  const filename = optionalString(obj.filename, `${path}.filename`, issues);
  if (link && fileId) issues.add(path, 'must have only one of link or fileId');
  else if (!link && !fileId) issues.add(path, 'must have either link or fileId');
  if (link && !isHttpsUrl(link)) issues.add(`${path}.link`, 'must be an https URL');
  if (filename && format !== undefined && format !== 'document') {
    issues.add(`${path}.filename`, 'is only allowed when format is document');
  }
  if (issues.list.length > before || format === undefined) return undefined;
  return {
    format,
    ...(link ? { link } : {}),
    ...(fileId ? { fileId } : {}),
    ...(filename ? { filename } : {}),
  };
}

// ---------------------------------------------------------------- order_details

function prepareOrderDetails(v: unknown, path: string, issues: Issues): PreparedOrderDetails | undefined {
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
    const description = isObject(obj.tax)
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

// ---------------------------------------------------------------- small checks

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isNonNegativeInteger(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

function isHttpsUrl(s: string): boolean {
  try {
    const url = new URL(s);
    return url.protocol === 'https:' && url.hostname !== '';
  } catch {
    return false;
  }
}

/** Length in characters (code points), as the provider counts it; stops early on long strings. */
function longerThan(s: string, max: number): boolean {
  if (s.length <= max) return false;
  let n = 0;
  for (const _ of s) if (++n > max) return true;
  return false;
}

function requireObject(v: unknown, path: string, issues: Issues): Json | undefined {
  if (v === undefined || v === null) {
    issues.add(path, 'should not be empty');
    return undefined;
  }
  if (!isObject(v)) {
    issues.add(path, 'must be an object');
    return undefined;
  }
  return v;
}

function requireArray(v: unknown, path: string, issues: Issues): unknown[] | undefined {
  if (v === undefined || v === null) {
    issues.add(path, 'should not be empty');
    return undefined;
  }
  if (!Array.isArray(v)) {
    issues.add(path, 'must be an array');
    return undefined;
  }
  if (v.length === 0) {
    issues.add(path, 'must contain at least 1 elements');
    return undefined;
  }
  return v;
}

function requireString(v: unknown, path: string, issues: Issues, max?: number): string | undefined {
  if (v === undefined || v === null) {
    issues.add(path, 'should not be empty');
    return undefined;
  }
  if (typeof v !== 'string') {
    issues.add(path, 'must be a string');
    return undefined;
  }
  if (v.trim() === '') {
    issues.add(path, 'should not be empty');
    return undefined;
  }
  if (max !== undefined && longerThan(v, max)) {
    issues.add(path, `must be shorter than or equal to ${max} characters`);
    return undefined;
  }
  return v;
}

/** An optional string; '' counts as absent. */
function optionalString(v: unknown, path: string, issues: Issues, max?: number): string | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') {
    issues.add(path, 'must be a string');
    return undefined;
  }
  if (max !== undefined && longerThan(v, max)) {
    issues.add(path, `must be shorter than or equal to ${max} characters`);
    return undefined;
  }
  return v;
}

function requireEnum<T extends string>(
  v: unknown,
  path: string,
  allowed: readonly T[],
  issues: Issues,
): T | undefined {
  if (v === undefined || v === null || v === '') {
    issues.add(path, 'should not be empty');
    return undefined;
  }
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) {
    issues.add(path, `must be one of the following values: ${allowed.join(', ')}`);
    return undefined;
  }
  return v as T;
}
