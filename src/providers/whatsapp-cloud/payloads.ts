import type {
  PreparedInteractive,
  PreparedMedia,
  PreparedMessage,
  PreparedOrderDetails,
  PreparedTemplate,
  ProviderAmount,
  TemplateParam,
} from '../types.js';

/** The Graph API `messages` body for a prepared message, as docs/whatsapp.md "Sending" describes it. */

export type GraphJson = { [key: string]: GraphValue };
type GraphValue = string | number | boolean | GraphValue[] | GraphJson;

/** A business-scoped user id (`US.13491208655302741918`): the address of a customer with no number. */
const USER_ID = /^[A-Z]{2}\.[A-Za-z0-9.]+$/;

export function buildGraphMessage(to: string, message: PreparedMessage): GraphJson {
  const base: GraphJson = {
    messaging_product: 'whatsapp',
    recipient_type: 'individual',
    // A user id goes in `recipient`; Meta accepts numbers without `+`, but with it the country code is
    // never ambiguous.
    ...(USER_ID.test(to) ? { recipient: to } : { to: to.startsWith('+') ? to : `+${to}` }),
  };
  switch (message.type) {
    case 'text':
      return { ...base, type: 'text', text: { body: message.text, preview_url: false } };
    case 'media':
      return { ...base, type: message.media.kind, [message.media.kind]: mediaObject(message.media) };
    case 'template':
      return { ...base, type: 'template', template: templateObject(message.template) };
    case 'interactive':
      return { ...base, type: 'interactive', interactive: interactiveObject(message.interactive) };
  }
}

/** Reply buttons or a one-section list (docs/whatsapp.md "Interactive messages"). */
function interactiveObject(i: PreparedInteractive): GraphJson {
  const body = { text: i.body };
  if (i.kind === 'button') {
    return {
      type: 'button',
      body,
      action: { buttons: i.options.map((o) => ({ type: 'reply', reply: { id: o.id, title: o.title } })) },
    };
  }
  return {
    type: 'list',
    body,
    action: {
      button: i.button ?? 'Menu',
      sections: [
        {
          rows: i.options.map((o) => ({
            id: o.id,
            title: o.title,
            ...(o.description !== undefined ? { description: o.description } : {}),
          })),
        },
      ],
    },
  };
}

function mediaObject(media: PreparedMedia): GraphJson {
  const out: GraphJson = { id: media.mediaId };
  // Audio and stickers take no caption; only documents carry a file name.
  if (media.caption && media.kind !== 'audio' && media.kind !== 'sticker') out.caption = media.caption;
  if (media.filename && media.kind === 'document') out.filename = media.filename;
  return out;
}

function templateObject(t: PreparedTemplate): GraphJson {
  const components: GraphJson[] = [];
  const headerParams: GraphJson[] = [];
  if (t.mediaHeader) {
    const { format, link, fileId, filename } = t.mediaHeader;
    const media: GraphJson = link !== undefined ? { link } : { id: fileId ?? '' };
    if (filename && format === 'document') media.filename = filename;
    headerParams.push({ type: format, [format]: media });
  }
  headerParams.push(...t.header.map(textParam));
  if (headerParams.length > 0) components.push({ type: 'header', parameters: headerParams });
  if (t.body.length > 0) components.push({ type: 'body', parameters: t.body.map(textParam) });
  for (const b of t.urlButtons) {
    components.push({
      type: 'button',
      sub_type: 'url',
      index: String(b.index),
      parameters: b.params.map(textParam),
    });
  }
  for (const b of t.orderDetails) {
    components.push({
      type: 'button',
      sub_type: 'order_details',
      index: b.index,
      parameters: [{ type: 'action', action: { order_details: orderDetailsObject(b.orderDetails) } }],
    });
  }
  const template: GraphJson = {
    name: t.name,
    language: { code: t.language, policy: 'deterministic' },
  };
  if (components.length > 0) template.components = components;
  return template;
}

function textParam(p: TemplateParam): GraphJson {
  return p.parameterName !== undefined
    ? { type: 'text', parameter_name: p.parameterName, text: p.text }
    : { type: 'text', text: p.text };
}

function amount(a: ProviderAmount): GraphJson {
  return { value: a.value, offset: a.offset };
}

function orderDetailsObject(o: PreparedOrderDetails): GraphJson {
  const tax: GraphJson = amount(o.order.tax);
  if (o.order.tax.description) tax.description = o.order.tax.description;
  return {
    reference_id: o.referenceId,
    type: o.type,
    payment_type: o.paymentType,
    currency: o.currency,
    total_amount: amount(o.totalAmount),
    payment_settings: o.paymentSettings.map((s) => ({
      type: s.type,
      pix_dynamic_code: {
        code: s.pixDynamicCode.code,
        merchant_name: s.pixDynamicCode.merchantName,
        key: s.pixDynamicCode.key,
        key_type: s.pixDynamicCode.keyType,
      },
    })),
    order: {
      status: o.order.status,
      items: o.order.items.map((i) => ({
        retailer_id: i.retailerId,
        name: i.name,
        amount: amount(i.amount),
        quantity: i.quantity,
      })),
      subtotal: amount(o.order.subtotal),
      tax,
    },
  };
}
