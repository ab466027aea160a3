import { Type, type Static } from '@sinclair/typebox';
import { NonBlank } from '../../http/schemas.js';
import { AgentListFilters, ListChatsQuery } from '../chats/index.js';

/** A user's saved views of the chat list: a name and the list's filters and sort. */

/** Most views one user may save: they are tabs. */
export const MAX_VIEWS = 20;

const { page: _page, limit: _limit, ...channelFilters } = ListChatsQuery.properties;

/** What a view keeps: the agent list's query (`listAgentChats`) without the page. */
export const ViewFiltersSchema = Type.Object(
  { ...channelFilters, ...AgentListFilters },
  { additionalProperties: false, description: 'The `listAgentChats` query the view lists, less the page' },
);
export type ViewFiltersT = Static<typeof ViewFiltersSchema>;

export const ChatViewSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  filters: ViewFiltersSchema,
  position: Type.Integer({ description: 'Its place among the user’s views, from 0' }),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});
export type ChatViewT = Static<typeof ChatViewSchema>;

const Name = NonBlank({ maxLength: 50 });

export const CreateViewBody = Type.Object(
  { name: Name, filters: ViewFiltersSchema },
  { additionalProperties: false },
);
export type CreateViewInput = Static<typeof CreateViewBody>;

export const UpdateViewBody = Type.Object(
  {
    name: Type.Optional(Name),
    filters: Type.Optional(ViewFiltersSchema),
    position: Type.Optional(
      Type.Integer({ minimum: 0, maximum: MAX_VIEWS - 1, description: 'Move the view to this place' }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateViewInput = Static<typeof UpdateViewBody>;

export const ViewCountsSchema = Type.Object({
  counts: Type.Array(
    Type.Object({
      id: Type.String(),
      total: Type.Union([Type.Integer(), Type.Null()], {
        description: 'Exact number of chats the view lists now; null when its filters are no longer allowed',
      }),
    }),
  ),
});
export type ViewCountsT = Static<typeof ViewCountsSchema>;
