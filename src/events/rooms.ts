/** Socket.IO room names. Ids are ObjectIds, unique across accounts, so rooms need no account prefix. */
export const room = {
  user: (id: string) => `user:${id}`,
  team: (id: string) => `team:${id}`,
  chat: (id: string) => `chat:${id}`,
  attendance: (chatId: string) => `attendance:${chatId}`,
  /** Who views or types in a conversation (`presence.update`, the gateway's own, not in the log). */
  presence: (chatId: string) => `presence:${chatId}`,
  /**
   * Every connection of a user joins this room at handshake (no event is ever sent to it), so the
   * gateway finds a user's connections on every node when their access changes.
   */
  owner: (userId: string) => `uid:${userId}`,
  /**
   * Every signed-in connection of an account joins it at handshake: changes to what the whole account
   * shares (its labels) go there. Also the audience tag of those events.
   */
  account: (accountId: string) => `account:${accountId}`,
  /**
   * A bot's: no connection joins it; the events sent to it are what the bot's webhook endpoint
   * receives (src/events/events.repo.ts `eventWritesSql`).
   */
  bot: (botId: string) => `bot:${botId}`,
};

/**
 * Audience tag of every event about a chat: users with `chats:read_all` see all of them on resync
 * (`GET /api/events`), as they may join every team and chat room live.
 */
export const READ_ALL_TAG = '*read_all';

/**
 * Where an event goes (`rooms`, live) and who may read it back from the log (`audience`, resync).
 * The audience of a chat's event is everyone who could see the chat then: its team and attendant
 * (before and after the change), plus read_all users; a personal event's audience is its user.
 */
export interface Target {
  rooms: string[];
  audience: string[];
}

/** What routing reads of a chat (the chats module's Chat has these): its id, team and attendant. */
export interface ChatPlace {
  id: string;
  teamId: string;
  userId: string | null;
  /** The bot holding it: its events also go to the bot's room. */
  botId?: string | null;
}

const uniq = (xs: (string | null | undefined)[]): string[] => [
  ...new Set(xs.filter((x): x is string => typeof x === 'string')),
];

function chatTarget(
  chat: ChatPlace,
  rooms: (string | null | undefined)[],
  also: { teams?: (string | null)[]; users?: (string | null)[] } = {},
): Target {
  const teams = [chat.teamId, ...(also.teams ?? [])].filter((t): t is string => t !== null);
  const users = [chat.userId, ...(also.users ?? [])].filter((u): u is string => u !== null);
  return {
    rooms: uniq([...rooms, chat.botId ? room.bot(chat.botId) : null]),
    audience: uniq([...teams.map(room.team), ...users.map(room.user), READ_ALL_TAG]),
  };
}

const maybeUser = (id: string | null) => (id === null ? null : room.user(id));

/** The rooms of each event, as docs/gateway.md "Events" lists them. */
export const targets = {
  message: (chat: ChatPlace) => chatTarget(chat, [room.attendance(chat.id)]),
  chatNew: (chat: ChatPlace) => chatTarget(chat, [room.team(chat.teamId), maybeUser(chat.userId)]),
  /** Its watchers, and its attendant wherever they are (a customer's new message is for them). */
  chatUpdate: (chat: ChatPlace) => chatTarget(chat, [room.chat(chat.id), maybeUser(chat.userId)]),
  chatQueue: (chat: ChatPlace, fromTeamId: string) =>
    chatTarget(chat, [room.team(fromTeamId), room.team(chat.teamId), room.chat(chat.id)], {
      teams: [fromTeamId],
    }),
  chatCapture: (chat: ChatPlace) =>
    chatTarget(chat, [room.team(chat.teamId), room.chat(chat.id), maybeUser(chat.userId)]),
  chatTransfer: (chat: ChatPlace, from: { teamId: string; userId: string | null }) =>
    chatTarget(
      chat,
      [
        room.team(from.teamId),
        room.team(chat.teamId),
        maybeUser(from.userId),
        maybeUser(chat.userId),
        room.chat(chat.id),
      ],
      { teams: [from.teamId], users: [from.userId] },
    ),
  chatReopen: (chat: ChatPlace) =>
    chatTarget(chat, [room.team(chat.teamId), room.chat(chat.id), maybeUser(chat.userId)]),
  chatClose: (chat: ChatPlace) =>
    chatTarget(chat, [room.team(chat.teamId), room.chat(chat.id), maybeUser(chat.userId)]),
  /** A snooze began or ended: it leaves or comes back to its team's lists and its attendant's. */
  chatSnooze: (chat: ChatPlace) =>
    chatTarget(chat, [room.team(chat.teamId), room.chat(chat.id), maybeUser(chat.userId)]),
  /** A bot's hold ended: the bot (its last event of the chat), the team's lists and the open conversation. */
  botReleased: (chat: ChatPlace, botId: string) =>
    chatTarget(chat, [
      room.team(chat.teamId),
      room.chat(chat.id),
      room.attendance(chat.id),
      maybeUser(chat.userId),
      room.bot(botId),
    ]),
  /** A missed SLA target: the chat's team (its supervisors among them), its list item, its attendant. */
  slaBreached: (chat: ChatPlace) =>
    chatTarget(chat, [room.team(chat.teamId), room.chat(chat.id), maybeUser(chat.userId)]),
  /** Whoever watches the chat's list item or its messages; the audience of both chats. */
  chatSplit: (chat: ChatPlace, into: ChatPlace) =>
    chatTarget(chat, [room.chat(chat.id), room.attendance(chat.id)], {
      teams: [into.teamId],
      users: [into.userId],
    }),
  /** A private note: whoever watches the chat's list item or has the conversation open. */
  note: (chat: ChatPlace) => chatTarget(chat, [room.chat(chat.id), room.attendance(chat.id)]),
  /** A chat's labels: whoever watches its list item or has it open. */
  chatLabels: (chat: ChatPlace) => chatTarget(chat, [room.chat(chat.id), room.attendance(chat.id)]),
  /**
   * A customer's labels: whoever watches one of the customer's open chats (list item or open); the
   * audience of every chat given (their teams and attendants).
   */
  customerChats: (chats: readonly ChatPlace[]): Target => ({
    rooms: uniq(chats.flatMap((c) => [room.chat(c.id), room.attendance(c.id)])),
    audience: uniq([
      ...chats.flatMap((c) => [room.team(c.teamId), c.userId === null ? null : room.user(c.userId)]),
      READ_ALL_TAG,
    ]),
  }),
  /** Every signed-in user of the account. */
  account: (accountId: string): Target => ({
    rooms: [room.account(accountId)],
    audience: [room.account(accountId)],
  }),
  personal: (userId: string): Target => ({ rooms: [room.user(userId)], audience: [room.user(userId)] }),
  /**
   * A customer's event: whoever may see the customer, i.e. one of its chats — the teams of its chats
   * and their attendants (whose consoles are in those rooms), and read_all users on resync.
   */
  customer: (place: CustomerPlace): Target => ({
    rooms: uniq([...place.teamIds.map(room.team), ...place.userIds.map(room.user)]),
    audience: uniq([...place.teamIds.map(room.team), ...place.userIds.map(room.user), READ_ALL_TAG]),
  }),
};

/** Where a customer's chats are: their teams and attendants (each once). */
export interface CustomerPlace {
  teamIds: readonly string[];
  userIds: readonly string[];
}
