import { createHmac } from 'node:crypto';

/** A Graph webhook body with one `messages` change (messages, contacts or statuses) for a phone number id. */
export function graphWebhook(phoneNumberId: string, value: Record<string, unknown>) {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '102290129340398',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550783881', phone_number_id: phoneNumberId },
              ...value,
            },
          },
        ],
      },
    ],
  };
}

/** `X-Hub-Signature-256` of a raw webhook body, as Meta signs it with the app secret. */
export function hubSignature(secret: string, raw: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
}
