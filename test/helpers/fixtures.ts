import type { Services } from '../../src/services.js';
import type { UserActor } from '../../src/access/actors.js';
import type { ApiKeyScope } from '../../src/access/permissions.js';
import { API_KEY_SCOPES } from '../../src/access/permissions.js';

let seq = 0;
const unique = (p: string) => `${p}${Date.now().toString(36)}${(seq++).toString(36)}`;

export interface Fixture {
  accountId: string;
  admin: UserActor;
  adminToken: string;
  agents: { id: string; token: string; email: string }[];
  teams: { id: string; name: string }[];
  channels: { id: string; name: string }[];
  /** An account API key with every scope and every channel. */
  apiKey: string;
  services: Services;
  /** Creates another account API key. */
  makeKey(scopes?: ApiKeyScope[], channelIds?: string[] | null): Promise<string>;
  /** A customer message on a sandbox channel; returns the chat id. */
  inbound(channelIndex: number, from: string, text?: string, name?: string): Promise<string>;
  authHeader(key?: string): Record<string, string>;
}

/**
 * An account built through the platform's own services: admin, two agents, two teams (agent 0 in
 * team 0, agent 1 in team 1), two sandbox channels (channel i → team i) and a full API key.
 */
export async function seedAccount(services: Services, opts: { agents?: number } = {}): Promise<Fixture> {
  const email = `${unique('admin')}@example.com`;
  const password = 'admin-password';
  const created = await services.accounts.createWithAdmin({
    accountName: unique('Conta '),
    adminName: 'Admin',
    email,
    password,
  });
  const admin = await services.auth.authenticate((await services.auth.login(email, password)).accessToken);
  const adminToken = (await services.auth.login(email, password)).accessToken;

  const agents: Fixture['agents'] = [];
  for (let i = 0; i < (opts.agents ?? 2); i++) {
    const agentEmail = `${unique('agent')}@example.com`;
    const user = await services.users.create(admin, {
      name: `Agente ${i}`,
      email: agentEmail,
      password: 'agent-password',
      role: 'agent',
    });
    const token = (await services.auth.login(agentEmail, 'agent-password')).accessToken;
    agents.push({ id: user.id, token, email: agentEmail });
  }
  const teams: Fixture['teams'] = [];
  for (let i = 0; i < 2; i++) {
    const members = agents[i] ? [agents[i]!.id] : [];
    const team = await services.teams.create(admin, { name: `Equipe ${i}`, members });
    teams.push({ id: team.id, name: team.name });
  }
  const channels: Fixture['channels'] = [];
  for (let i = 0; i < 2; i++) {
    const ch = await services.channels.create(admin, {
      name: `Canal ${i}`,
      provider: 'sandbox',
      defaultTeamId: teams[i]!.id,
    });
    channels.push({ id: ch.id, name: ch.name });
  }
  const makeKey = async (scopes: ApiKeyScope[] = [...API_KEY_SCOPES], channelIds: string[] | null = null) =>
    (await services.apiKeys.create(admin, { name: unique('key'), scopes, channelIds })).token;
  const apiKey = await makeKey();
  return {
    accountId: created.accountId,
    admin,
    adminToken,
    agents,
    teams,
    channels,
    apiKey,
    services,
    makeKey,
    inbound: async (channelIndex, from, text = 'Olá', name) =>
      (
        await services.inbound.receiveSandbox(admin, channels[channelIndex]!.id, {
          from,
          text,
          name: name ?? null,
        })
      ).chatId,
    authHeader: (key = apiKey) => ({ authorization: `ApiKey ${key}` }),
  };
}
