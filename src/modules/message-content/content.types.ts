/**
 * The contract's send-message `Message` resource (docs/channel-api.md, "POST /channel-api/messages/send"),
 * as the request body carries it. `prepareMessage` checks these at request time and does not trust
 * the static types: a value may arrive with any JSON shape.
 */

export type MessageType = 'text' | 'template' | 'media';

export interface SendTextMessage {
  value: string;
  /** Push name for the internal message context. */
  pushName?: string;
}

/** A placeholder value: a positional string, or an object naming (`key`) or placing (`correlationId`) it. */
export type TemplateVariableValue = string | { value: string; key?: string; correlationId?: number };

export interface SendTemplateVariables {
  header?: TemplateVariableValue[];
  body?: TemplateVariableValue[];
  /** Values of `url` button placeholders; not for `order_details`. */
  buttons?: TemplateVariableValue[];
}

export interface SendTemplateMediaHeader {
  format: 'image' | 'video' | 'document';
  link?: string;
  fileId?: string;
  filename?: string;
}

/** An integer in the smallest unit, or an ERP decimal string in major units. */
export interface SendAmount {
  value: number | string;
  offset: number;
}

export interface SendOrderTax extends SendAmount {
  description?: string;
}

export interface SendOrderItem {
  retailerId: string;
  name: string;
  amount: SendAmount;
  quantity: number;
}

export interface SendOrderPayload {
  status: string;
  items: SendOrderItem[];
  subtotal: SendAmount;
  tax?: SendOrderTax;
}

export interface SendPixDynamicCode {
  code: string;
  merchantName: string;
  key: string;
  keyType: string;
}

export interface SendPaymentSetting {
  type: 'pix_dynamic_code';
  pixDynamicCode?: SendPixDynamicCode;
}

export interface SendOrderDetails {
  referenceId: string;
  type: string;
  paymentType: string;
  currency: string;
  totalAmount: SendAmount;
  paymentSettings: SendPaymentSetting[];
  order: SendOrderPayload;
}

export interface SendTemplateButton {
  index: number;
  type: 'order_details';
  orderDetails: SendOrderDetails;
}

export interface SendTemplateMessage {
  name: string;
  language?: string;
  /** A plain array is the legacy form of `{ body }`. */
  variables?: SendTemplateVariables | TemplateVariableValue[];
  mediaHeader?: SendTemplateMediaHeader;
  buttons?: SendTemplateButton[];
}

export interface SendMediaMessage {
  mimetype: string;
  base64: string;
  filename?: string;
  caption?: string;
  /** Reserved by the contract; refused at request time. */
  mediaUrl?: string;
  /** Logical type kept when the message is stored. */
  mediaType?: string;
}

export interface SendMessage {
  type: MessageType;
  text?: SendTextMessage;
  template?: SendTemplateMessage;
  media?: SendMediaMessage;
}
