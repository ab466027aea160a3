import { Type, type Static } from '@sinclair/typebox';
import { NonBlank, Nullable, ObjectIdString, pageOf } from '../../http/schemas.js';
import { TEXT_MAX_LENGTH } from '../message-content/index.js';

/** Bounds of canned responses (docs/agent-api.md, "Canned responses"). */
export const SHORTCUT_MAX_LENGTH = 32;
export const SEARCH_MAX_LENGTH = 100;
/** Most responses one owner holds: the account, one team, one user. */
export const MAX_PER_OWNER = { account: 2000, team: 1000, personal: 300 } as const;

const Scope = Type.Union([Type.Literal('account'), Type.Literal('team'), Type.Literal('personal')], {
  description:
    '`account` (every user; admins manage), `team` (its members; admins and its supervisors manage), `personal` (its owner only)',
});

const Shortcut = Type.String({
  minLength: 1,
  maxLength: SHORTCUT_MAX_LENGTH,
  pattern: '^[^\\s/{}]+$',
  description: 'What follows `/` in the composer: no spaces, slashes or braces; unique per owner, any case',
  'x-error-message': ['must have no spaces, slashes or braces', 'não pode ter espaços, barras nem chaves'],
});

const Content = NonBlank({
  maxLength: TEXT_MAX_LENGTH,
  description:
    'The text, with variables `{{contact.name}}`, `{{contact.first_name}}`, `{{agent.name}}`, `{{agent.first_name}}`, `{{contact.attributes.<key>}}`',
});

export const CreateCannedBody = Type.Object(
  {
    scope: Scope,
    teamId: Type.Optional(ObjectIdString({ description: 'The team, for `scope: team` only' })),
    shortcut: Shortcut,
    content: Content,
  },
  { additionalProperties: false },
);
export type CreateCannedInput = Static<typeof CreateCannedBody>;

export const UpdateCannedBody = Type.Object(
  { shortcut: Type.Optional(Shortcut), content: Type.Optional(Content) },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateCannedInput = Static<typeof UpdateCannedBody>;

export const ListCannedQuery = Type.Object(
  {
    q: Type.Optional(
      Type.String({
        maxLength: SEARCH_MAX_LENGTH,
        description:
          'Search: shortcuts starting with it come first, then any response whose shortcut or text contains it (accents and case ignored)',
      }),
    ),
    scope: Type.Optional(Scope),
    teamId: Type.Optional(ObjectIdString({ description: 'Only this team’s responses' })),
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, default: 1 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  },
  { additionalProperties: false },
);
export type ListCannedQueryT = Static<typeof ListCannedQuery>;

export const RenderCannedQuery = Type.Object(
  { chatId: ObjectIdString({ description: 'The conversation it is inserted in' }) },
  { additionalProperties: false },
);

/** The attachment's body: a file as an agent's media reply takes it. */
export const CannedAttachmentBody = Type.Object(
  {
    mimetype: Type.String({ maxLength: 255, description: 'A media type every channel takes' }),
    filename: Type.Optional(Type.String({ maxLength: 255 })),
    base64: Type.String({
      description: 'The file in base64, without a `data:` prefix; within the limit for its type',
    }),
  },
  { additionalProperties: false },
);
export type CannedAttachmentInput = Static<typeof CannedAttachmentBody>;

const AttachmentSchema = Type.Object({
  mimetype: Type.String(),
  filename: Nullable(Type.String()),
  size: Type.Integer({ description: 'Bytes' }),
});

export const CannedResponseSchema = Type.Object({
  id: Type.String(),
  scope: Scope,
  teamId: Nullable(Type.String()),
  userId: Nullable(Type.String({ description: 'The owner of a personal response' })),
  shortcut: Type.String(),
  content: Type.String(),
  variables: Type.Array(Type.String(), { description: 'The variables `content` uses, in order' }),
  attachment: Nullable(AttachmentSchema),
  usageCount: Type.Integer({ description: 'Times it was inserted in a sent message' }),
  lastUsedAt: Nullable(Type.String({ format: 'date-time' })),
  canManage: Type.Boolean({ description: 'Whether the caller may change or delete it' }),
  createdBy: Nullable(Type.String()),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});
export type CannedResponseT = Static<typeof CannedResponseSchema>;

export const CannedPageSchema = pageOf('cannedResponses', CannedResponseSchema);
export type CannedPageT = Static<typeof CannedPageSchema>;

export const RenderedCannedSchema = Type.Object({
  id: Type.String(),
  text: Type.String({ description: 'The content with its variables filled' }),
  attachment: Nullable(AttachmentSchema),
});
export type RenderedCannedT = Static<typeof RenderedCannedSchema>;

export const CannedUseSchema = Type.Object({
  id: Type.String(),
  usageCount: Type.Integer(),
  lastUsedAt: Type.String({ format: 'date-time' }),
});
export type CannedUseT = Static<typeof CannedUseSchema>;
