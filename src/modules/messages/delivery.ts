import { Type, type Static } from '@sinclair/typebox';
import { Nullable } from '../../http/schemas.js';
import type { DeliveryDetails } from '../../providers/types.js';

/**
 * What the provider reported with a message's delivery statuses besides the status — how it is
 * charged, its conversation, the sender's callback data, the errors given — as messages and request
 * log entries show it (`delivery`). Businesses reconcile the provider's invoices with it. Each part
 * comes from the latest status that reported it (docs/whatsapp.md, "Pricing and conversations").
 */
export const DeliverySchema = Type.Object(
  {
    pricing: Type.Optional(
      Type.Object(
        {
          billable: Nullable(Type.Boolean({ description: 'Whether the provider charges for it' })),
          pricingModel: Nullable(
            Type.String({ description: '`CBP` (per conversation), `PMP` (per message), …' }),
          ),
          category: Nullable(
            Type.String({
              description:
                'What it is charged as: `marketing`, `utility`, `authentication`, `service`, `referral_conversion`, …',
            }),
          ),
          type: Nullable(
            Type.String({ description: '`regular`, `free_customer_service`, `free_entry_point`, …' }),
          ),
        },
        { description: "How the provider charges the message (WhatsApp's `pricing`)" },
      ),
    ),
    conversation: Type.Optional(
      Type.Object(
        {
          id: Nullable(Type.String({ description: "The provider's conversation id" })),
          originType: Nullable(
            Type.String({
              description:
                'What opened the conversation: `marketing`, `utility`, `authentication`, `service`, `referral_conversion`, …',
            }),
          ),
          expiresAt: Nullable(
            Type.String({ format: 'date-time', description: 'When the conversation ends' }),
          ),
        },
        { description: "The provider's conversation the message was charged in" },
      ),
    ),
    callbackData: Type.Optional(
      Type.String({
        description:
          "Data the sender attached to the message for its own tracking (WhatsApp's `biz_opaque_callback_data`)",
      }),
    ),
    errors: Type.Optional(
      Type.Array(
        Type.Object({
          code: Type.String({ description: "The provider's error code, e.g. 131049" }),
          title: Nullable(Type.String()),
          message: Nullable(Type.String()),
          details: Nullable(Type.String({ description: "The provider's longer explanation" })),
        }),
        {
          description:
            'Every error the provider gave with a status, as given (`error` is the failure in short)',
        },
      ),
    ),
  },
  {
    description:
      'What the provider reported with the delivery statuses besides the status; each part from the latest status that reported it. Absent until a status reports any.',
  },
);
export type DeliveryT = Static<typeof DeliverySchema>;

/** `delivery` of a message or request log entry, from the stored JSON; absent when nothing was reported. */
export function deliveryOf(stored: DeliveryDetails | null | undefined): { delivery?: DeliveryT } {
  if (!stored) return {};
  const delivery: DeliveryT = {};
  if (stored.pricing) delivery.pricing = stored.pricing;
  if (stored.conversation) delivery.conversation = stored.conversation;
  if (stored.callbackData !== undefined) delivery.callbackData = stored.callbackData;
  if (stored.errors)
    delivery.errors = stored.errors.map((e) => ({
      code: e.code,
      title: e.title,
      message: e.message ?? null,
      details: e.details,
    }));
  return { delivery };
}
