import { Type, type Static } from '@sinclair/typebox';
import { eventType } from '../../events/catalogue.js';
import { NonBlank, Nullable, ObjectIdString } from '../../http/schemas.js';

/** A channel's built-in flow: what the API reads and writes, and the events of its changes and ratings. */

/** Options of a menu: WhatsApp lists hold at most ten rows. */
export const MAX_OPTIONS = 10;
/** A list row's title on WhatsApp; reply buttons take 20, so longer labels make the menu a list. */
export const MAX_LABEL = 24;
/** An interactive message's body is at most 1,024 characters: the prompt leaves room for the options. */
export const MAX_PROMPT = 700;
/** The button that opens a WhatsApp list holds at most 20 characters. */
export const MAX_LIST_BUTTON = 20;
const MAX_TEXT = 1024;

const Text = (description: string, maxLength = MAX_TEXT) => NonBlank({ maxLength, description });

const OptionSchema = Type.Object(
  {
    label: Text('What the customer reads (and may type) for the option', MAX_LABEL),
    teamId: ObjectIdString({ description: 'The team the option leads to (an active team of the account)' }),
  },
  { additionalProperties: false },
);

const MenuSchema = Type.Object(
  {
    prompt: Text('Said before the numbered options', MAX_PROMPT),
    options: Type.Array(OptionSchema, {
      minItems: 1,
      maxItems: MAX_OPTIONS,
      description: `1 to ${MAX_OPTIONS} options, numbered 1, 2… in this order`,
    }),
    interactive: Type.Boolean({
      description:
        'Send the menu as WhatsApp reply buttons (up to 3 options of at most 20 characters) or a list (up to 10) where the channel supports them; the numbered text is always in the body',
    }),
    listButton: Type.Optional(
      Text('The button that opens the list, when the menu is one; absent: `Opções`', MAX_LIST_BUTTON),
    ),
    invalidReply: Text('Said before the menu again when the answer is not an option'),
    maxAttempts: Type.Integer({
      minimum: 1,
      maximum: 5,
      description: 'Answers that are not an option before the conversation goes to the default team',
    }),
    timeoutMinutes: Type.Integer({
      minimum: 1,
      maximum: 1440,
      description: 'Minutes without a choice before the conversation goes to the default team',
    }),
  },
  { additionalProperties: false },
);

const AutoCloseSchema = Type.Object(
  {
    hours: Type.Integer({
      minimum: 1,
      maximum: 23,
      description:
        "Hours since the customer's last message, with the platform's reply the last word, after which the conversation is closed (at most 23: the closing message must reach the customer within WhatsApp's 24-hour window)",
    }),
    message: Text('Sent as the conversation is closed'),
  },
  { additionalProperties: false },
);

const CsatSchema = Type.Object(
  {
    question: Text('Asked when the conversation is closed; the customer answers 1 to 5', MAX_PROMPT),
    thanks: Text('Sent once the rating is recorded'),
    invalidReply: Text('Sent when the answer is a number other than 1 to 5'),
    labels: Type.Optional(
      Type.Array(Text('What the customer reads for a score', MAX_LABEL), {
        minItems: 5,
        maxItems: 5,
        description:
          'The five answers, for 1 to 5, as the rating list shows them where the channel takes interactive messages (a reply may be the number or the label); absent: `1 – Muito insatisfeito` … `5 – Muito satisfeito`',
      }),
    ),
    listButton: Type.Optional(
      Text('The button that opens the rating list; absent: `Avaliar`', MAX_LIST_BUTTON),
    ),
    windowHours: Type.Integer({
      minimum: 1,
      maximum: 24,
      description: 'Hours after the close during which an answer counts as the rating',
    }),
  },
  { additionalProperties: false },
);

export const FlowSettingsSchema = Type.Object(
  {
    enabled: Type.Boolean({
      description: 'New conversations of the channel go through the flow (queue `Automação`)',
    }),
    greeting: Nullable(Text('Sent first to a new conversation; null: none')),
    menu: MenuSchema,
    outOfHoursMessage: Nullable(
      Text(
        'Sent when the chosen team is outside its business hours (the conversation still waits in its queue); null: none',
      ),
    ),
    awayMessage: Nullable(Text('Sent when no agent of the chosen team is online; null: none')),
    autoClose: Nullable(AutoCloseSchema),
    csat: Nullable(CsatSchema),
  },
  { additionalProperties: false },
);
export type FlowSettings = Static<typeof FlowSettingsSchema>;

export const UpdateChannelFlowBody = FlowSettingsSchema;

export const ChannelFlowSchema = Type.Object({
  channelId: Type.String(),
  configured: Type.Boolean({ description: 'false: never set; the answer shows the defaults, disabled' }),
  ...FlowSettingsSchema.properties,
  updatedAt: Nullable(Type.String({ format: 'date-time', description: 'null: never configured' })),
});
export type ChannelFlowT = Static<typeof ChannelFlowSchema>;

export const ChatCsatSchema = Type.Object({
  chatId: Type.String(),
  score: Type.Integer({ minimum: 1, maximum: 5 }),
  teamId: Type.String({ description: 'The team the conversation was with when it closed' }),
  userId: Nullable(Type.String({ description: 'The attendant the rating is about; null: none' })),
  ratedAt: Type.String({ format: 'date-time' }),
});
export type ChatCsatT = Static<typeof ChatCsatSchema>;

export const ChatCsatAnswerSchema = Type.Object({
  csat: Nullable(ChatCsatSchema),
});

export const CHANNEL_FLOW = eventType(
  'channel.flow',
  Type.Object({ flow: ChannelFlowSchema }, { description: "An admin set a channel's built-in flow" }),
);

export const CHAT_CSAT = eventType(
  'chat.csat',
  Type.Object(
    {
      csat: ChatCsatSchema,
      chat: Type.Object({
        id: Type.String(),
        teamId: Type.String(),
        userId: Nullable(Type.String()),
        channelId: Type.String(),
      }),
    },
    { description: 'The customer rated a closed conversation (1–5), about its attendant' },
  ),
);
