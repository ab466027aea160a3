import { useI18n, useMessages, type Lang } from '../i18n';
import type { Message } from '../types';

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

const TEXT = {
  'pt-BR': {
    marketing: 'Marketing',
    utility: 'Utilidade',
    authentication: 'Autenticação',
    authentication_international: 'Autenticação internacional',
    service: 'Serviço',
    referral_conversion: 'Conversão de anúncio',
    category: 'Categoria da conversa',
    billable: 'cobrável',
    free: 'gratuita',
    model: 'modelo {model}',
    conversation: 'conversa {id}',
    until: 'até {time}',
  },
  en: {
    marketing: 'Marketing',
    utility: 'Utility',
    authentication: 'Authentication',
    authentication_international: 'International authentication',
    service: 'Service',
    referral_conversion: 'Ad referral',
    category: 'Conversation category',
    billable: 'billable',
    free: 'free',
    model: '{model} pricing',
    conversation: 'conversation {id}',
    until: 'until {time}',
  },
} satisfies Record<Lang, Record<string, string>>;

const isKnown = (c: string): c is Category => (CATEGORIES as readonly string[]).includes(c);

/** The message's conversation category, when the provider reported one; nothing otherwise. */
export function MessageCategory(props: { m: Message }) {
  const m = useMessages(TEXT);
  const { time } = useI18n();
  const { pricing, conversation } = props.m.delivery ?? {};
  const category = pricing?.category ?? conversation?.originType;
  if (!category) return null;
  const name = isKnown(category) ? m(category) : category;
  const facts = [
    pricing?.billable === true ? m('billable') : pricing?.billable === false ? m('free') : null,
    pricing?.pricingModel ? m('model', { model: pricing.pricingModel }) : null,
    conversation?.id ? m('conversation', { id: conversation.id }) : null,
    conversation?.expiresAt ? m('until', { time: time(conversation.expiresAt) }) : null,
  ].filter((f): f is string => f !== null);
  return (
    <span
      className="msg-mark msg-category"
      data-testid="message-category"
      data-category={category}
      title={[`${m('category')}: ${name}`, ...facts].join(' · ')}
    >
      <span className="sr-only">{m('category')}: </span>
      {name}
    </span>
  );
}
