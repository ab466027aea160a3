import type { PreparedTemplate, TemplateParam } from '../../providers/types.js';
import { isJsonObject } from '../../lib/json-read.js';
import {
  isHttpsUrl,
  isNonNegativeInteger,
  Issues,
  optionalString,
  requireEnum,
  requireObject,
  requireString,
} from './field-checks.js';
import { prepareOrderDetails } from './prepare-order.js';

/** A `template` message: name and language, variables resolved to the template's components, media header, buttons. */

export const TEMPLATE_LANGUAGE_DEFAULT = 'pt_BR';

const NAMED_PARAMETER = /^[a-z_][a-z0-9_]*$/;
const HEADER_FORMATS = ['image', 'video', 'document'] as const;

export function prepareTemplate(v: unknown, issues: Issues): PreparedTemplate | undefined {
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
  } else if (isJsonObject(vars)) {
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
  if (!isJsonObject(item)) {
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
