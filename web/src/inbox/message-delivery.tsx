import { useI18n } from '../i18n';
import type { Message } from '../models';

// What the provider charges a sent message as — WhatsApp's conversation category — on the message's
// footer: what a business reconciles the provider's invoice with. Billable, pricing model and the
// conversation are in its title.

const CATEGORIES = [
  'marketing',
  'utility',
  'authentication',
  'authentication_international',
  'service',
  'referral_conversion',
] as const;
type Category = (typeof CATEGORIES)[number];

const isKnown = (c: string): c is Category => (CATEGORIES as readonly string[]).includes(c);

/** The message's conversation category, when the provider reported one; nothing otherwise. */
export function MessageCategory(props: { m: Message }) {
  const { t, time } = useI18n();
  const { pricing, conversation } = props.m.delivery ?? {};
  const category = pricing?.category ?? conversation?.originType;
  if (!category) return null;
  const name = isKnown(category) ? t(`delivery.category.${category}`) : category;
  const facts = [
    pricing?.billable === true
      ? t('delivery.billable')
      : pricing?.billable === false
        ? t('delivery.free')
        : null,
    pricing?.pricingModel ? t('delivery.model', { model: pricing.pricingModel }) : null,
    conversation?.id ? t('delivery.conversation', { id: conversation.id }) : null,
    conversation?.expiresAt ? t('delivery.until', { time: time(conversation.expiresAt) }) : null,
  ].filter((f): f is string => f !== null);
  return (
    <span
      className="msg-mark msg-category"
      data-testid="message-category"
      data-category={category}
      title={[`${t('delivery.category')}: ${name}`, ...facts].join(' · ')}
    >
      <span className="sr-only">{t('delivery.category')}: </span>
      {name}
    </span>
  );
}
