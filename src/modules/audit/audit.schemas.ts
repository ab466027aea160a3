import { Type, type Static } from '@sinclair/typebox';
import { Nullable } from '../../http/schemas.js';

/** The audit log of admin actions (docs/adr/0093-audit-log.md). */

export const AuditEntrySchema = Type.Object({
  id: Type.String({ description: 'Increasing: a later line has a greater id' }),
  actor: Type.Object({
    type: Type.Union([Type.Literal('user'), Type.Literal('api_key'), Type.Literal('system')]),
    id: Nullable(Type.String({ description: 'User or API key id; null for the platform itself' })),
    name: Nullable(Type.String({ description: "The user's or key's current name, when it still exists" })),
  }),
  action: Type.String({ description: 'What was done, `<target>.<verb>`: `user.create`, `apikey.revoke`…' }),
  target: Type.Object({ type: Type.String(), id: Nullable(Type.String()) }),
  details: Type.Record(Type.String(), Type.Unknown(), {
    description: 'The non-secret fields changed (never a key, token, password, hash or credential)',
  }),
  ip: Nullable(Type.String()),
  userAgent: Nullable(Type.String()),
  createdAt: Type.String({ format: 'date-time' }),
});
export type AuditEntryT = Static<typeof AuditEntrySchema>;

export const AuditListQuery = Type.Object(
  {
    actorId: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'User or API key id' })),
    action: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        pattern: '^[a-z_.]+$',
        description: 'Action or its prefix: `apikey.` lists every API key action',
      }),
    ),
    targetType: Type.Optional(Type.String({ minLength: 1, maxLength: 32, pattern: '^[a-z_]+$' })),
    targetId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    from: Type.Optional(Type.String({ format: 'date-time', description: 'Lines written at or after' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'Lines written before' })),
    before: Type.Optional(
      Type.String({
        pattern: '^[0-9]{1,18}$',
        description: "A line's id: lists the lines written before it",
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  },
  { additionalProperties: false },
);
export type AuditListInput = Static<typeof AuditListQuery>;

export const AuditPageSchema = Type.Object({
  entries: Type.Array(AuditEntrySchema, { description: 'Newest first' }),
  nextBefore: Nullable(Type.String({ description: 'Cursor of the next (older) page; null at the end' })),
});
export type AuditPageT = Static<typeof AuditPageSchema>;
