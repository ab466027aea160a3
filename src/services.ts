import type { Redis } from 'ioredis';
import type { Config } from './config.js';
import type { Db } from './db/index.js';
import { ApiKeyRateLimiter } from './http/rate-limit.js';
import { TokenService } from './lib/jwt.js';
import { AccountsService } from './modules/accounts/accounts.service.js';
import { ApiKeysRepo } from './modules/api-keys/api-keys.repo.js';
import { ApiKeysService } from './modules/api-keys/api-keys.service.js';
import { AuthService } from './modules/auth/auth.service.js';
import { LoginRateLimiter } from './modules/auth/login-rate-limit.js';
import { ChannelsRepo } from './modules/channels/channels.repo.js';
import { ChannelsService } from './modules/channels/channels.service.js';
import { ChatsRepo } from './modules/chats/chats.repo.js';
import { ChatsService } from './modules/chats/chats.service.js';
import { ContactsRepo } from './modules/contacts/contacts.repo.js';
import { InboundService } from './modules/messages/inbound.service.js';
import { MessagesRepo } from './modules/messages/messages.repo.js';
import { TeamsRepo } from './modules/teams/teams.repo.js';
import { TeamsService } from './modules/teams/teams.service.js';
import { UsersRepo } from './modules/users/users.repo.js';
import { UsersService } from './modules/users/users.service.js';

/** Every service of the platform, wired explicitly from the database, the config and Redis. */
export function createServices(deps: { db: Db; config: Config; jwtSecret: string; redis: Redis | null }) {
  const { db, config } = deps;
  const repos = {
    users: new UsersRepo(db),
    teams: new TeamsRepo(db),
    channels: new ChannelsRepo(db),
    apiKeys: new ApiKeysRepo(db),
    chats: new ChatsRepo(db),
    contacts: new ContactsRepo(),
    messages: new MessagesRepo(),
  };
  const tokens = new TokenService(deps.jwtSecret, config.jwtTtlSeconds);
  return {
    db,
    repos,
    tokens,
    rateLimiter: new ApiKeyRateLimiter(config.rateLimit.points, config.rateLimit.durationSeconds, deps.redis),
    accounts: new AccountsService(db),
    auth: new AuthService(repos.users, tokens, new LoginRateLimiter(config.loginRateLimit, deps.redis)),
    users: new UsersService(db, repos.users),
    teams: new TeamsService(db, repos.teams, repos.users),
    channels: new ChannelsService(db, repos.channels, repos.teams),
    apiKeys: new ApiKeysService(repos.apiKeys),
    chats: new ChatsService(db, repos.chats, repos.teams, repos.users),
    inbound: new InboundService(db, repos.chats, repos.contacts, repos.messages, repos.channels),
  };
}

export type Services = ReturnType<typeof createServices>;
