import { randomBytes } from 'node:crypto';
import type { Config } from './config.js';
import { localUrl } from './http/ports.js';
import { API_KEY_SCOPES } from './access/permissions.js';
import type { Services } from './services.js';

/**
 * `atende demo`: a ready-to-try account built through the platform's own services (admin, agents,
 * teams, a sandbox channel, keys, a waiting conversation), and how it is printed for a person.
 */

export interface DemoAccount {
  accountName: string;
  baseUrl: string;
  admin: { id: string; name: string; email: string; password: string };
  agents: { id: string; name: string; email: string; password: string }[];
  teams: { id: string; name: string; members: string[] }[];
  channel: { id: string; name: string; apiKey: string };
  accountApiKey: { id: string; scopes: string[]; token: string };
  /** A customer conversation already waiting in the first team's queue, to list and transfer. */
  sampleChatId: string;
  /** An access token of the admin, for the agent/admin API examples (lasts ATENDE_JWT_TTL_SECONDS). */
  adminToken: string;
}

// Passwords are generated, not well known: the server listens on every interface by default and the
// demo may run against a real DATABASE_URL, so a published password would be an open admin login.
const password = () => randomBytes(24).toString('base64url').replace(/[-_]/g, '').slice(0, 16);

/** `demo.atende.test`, then `demo2.atende.test`, …: the first number whose admin email is free. */
async function freeDemoNumber(services: Services): Promise<number> {
  for (let n = 1; ; n++) {
    if (!(await services.repos.users.emailTaken(`admin@${demoDomain(n)}`))) return n;
  }
}
const demoDomain = (n: number) => (n === 1 ? 'demo.atende.test' : `demo${n}.atende.test`);
const isUniqueViolation = (err: unknown) => (err as { code?: string }).code === '23505';

/** Builds the demo account through the platform's own services, as an admin would in the console. */
export async function createDemo(services: Services, baseUrl: string): Promise<DemoAccount> {
  // Two demos started together may pick the same number; the unique email decides, the loser moves on.
  let n = await freeDemoNumber(services);
  const adminPassword = password();
  for (;;) {
    try {
      await services.accounts.createWithAdmin({
        accountName: n === 1 ? 'Demo' : `Demo ${n}`,
        adminName: 'Alice Admin',
        email: `admin@${demoDomain(n)}`,
        password: adminPassword,
      });
      break;
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      n++;
    }
  }
  const domain = demoDomain(n);
  const adminEmail = `admin@${domain}`;
  const { accessToken: adminToken } = await services.auth.login(adminEmail, adminPassword);
  const admin = await services.auth.authenticate(adminToken);

  const agents: DemoAccount['agents'] = [];
  for (const [name, local] of [
    ['Bruno Agente', 'bruno'],
    ['Carla Agente', 'carla'],
  ] as const) {
    const agentPassword = password();
    const email = `${local}@${domain}`;
    const user = await services.users.create(admin, { name, email, password: agentPassword, role: 'agent' });
    agents.push({ id: user.id, name, email, password: agentPassword });
  }

  const teams: DemoAccount['teams'] = [];
  for (const [i, name] of ['Suporte', 'Vendas'].entries()) {
    const members = [agents[i]!.id];
    const team = await services.teams.create(admin, { name, description: `Demo team ${name}`, members });
    teams.push({ id: team.id, name: team.name, members });
  }

  const channel = await services.channels.create(admin, {
    name: 'Sandbox',
    provider: 'sandbox',
    defaultTeamId: teams[0]!.id,
    apiEnabled: true,
  });
  const { apiKey: channelKey } = await services.channels.rotateApiKey(admin, channel.id);
  const key = await services.apiKeys.create(admin, {
    name: 'Demo key',
    scopes: [...API_KEY_SCOPES],
    channelIds: null,
  });
  const sample = await services.inbound.receiveSandbox(admin, channel.id, {
    // Not the customer of the README's send examples, whose closeConversation would close this chat.
    from: '+55 11 97777-0001',
    name: 'Cliente Demo',
    text: 'Olá! Gostaria de saber o status do meu pedido.',
  });

  return {
    accountName: n === 1 ? 'Demo' : `Demo ${n}`,
    baseUrl,
    admin: { id: admin.userId, name: 'Alice Admin', email: adminEmail, password: adminPassword },
    agents,
    teams,
    channel: { id: channel.id, name: channel.name, apiKey: channelKey },
    accountApiKey: { id: key.id, scopes: key.scopes, token: key.token },
    sampleChatId: sample.chatId,
    adminToken,
  };
}

/**
 * The API's address for the demo's examples: the PORT (and HOST) the demo is given, as the server reads
 * them; without a PORT, the address the server last listened on (`npm start` on PORT=4500, stopped,
 * then `npm run demo`); before any server ran, the default. The demo itself serves nothing.
 */
export async function demoBaseUrl(config: Config, portGiven: boolean, services: Services): Promise<string> {
  if (portGiven && config.port !== 0) return localUrl(config.host, config.port);
  const last = await services.repos.settings.lastApiUrl();
  if (last) return last;
  // PORT=0 before any server ran: the port is the one the server will pick, left to the reader.
  return config.port === 0
    ? localUrl(config.host, 0).replace(/:0$/, ':$PORT')
    : localUrl(config.host, config.port);
}

/** The command that starts the server where `baseUrl` points: `npm start`, with PORT when not 3000. */
function startCommand(baseUrl: string): string {
  const port = /:(\d+)$/.exec(baseUrl)?.[1];
  return port && port !== '3000' ? `PORT=${port} npm start` : 'npm start';
}

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export function formatDemo(d: DemoAccount): string {
  const others = d.accountName !== 'Demo';
  const pad = (s: string, n: number) => s.padEnd(n);
  const people = [
    ['admin', d.admin.name, d.admin.email, d.admin.password],
    ...d.agents.map((a, i) => [`agent (${d.teams[i]!.name})`, a.name, a.email, a.password]),
  ];
  const json = (o: unknown) => q(JSON.stringify(o));
  const lines = [
    `Demo account "${d.accountName}" created.${others ? ' (An earlier demo account exists; its logins still work.)' : ''}`,
    '',
    'Logins (web console and POST /auth/login):',
    ...people.map(
      ([role, name, email, pw]) => `  ${pad(role!, 18)} ${pad(name!, 14)} ${pad(email!, 30)} ${pw}`,
    ),
    '',
    `Teams:   ${d.teams.map((t) => `${t.name} (${t.id})`).join(', ')}`,
    `Channel: ${d.channel.name} (${d.channel.id}), provider sandbox; one customer chat is waiting in queue Espera.`,
    '',
    'Keys — shown only this once, store them now:',
    `  Account API key (scopes ${d.accountApiKey.scopes.join(', ')}): ${d.accountApiKey.token}`,
    `  Channel API key (x-channel-api-key of channel ${d.channel.name}): ${d.channel.apiKey}`,
    '',
    `The demo data is in the account "${d.accountName}": log in as one of the users above to see it. Users of`,
    'other accounts (such as the admin created from ATENDE_ADMIN_EMAIL) do not see it.',
    '',
    `Start the server (${startCommand(d.baseUrl)}), then paste these lines into a shell: the examples of the`,
    'README and of the guides in docs/ use the same names and run as they are.',
    '',
    `export BASE=${d.baseUrl}`,
    `export ACCOUNT_KEY=${q(d.accountApiKey.token)}`,
    `export CHANNEL_KEY=${q(d.channel.apiKey)}`,
    `export CHANNEL_ID=${d.channel.id} CHAT_ID=${d.sampleChatId} TEAM_ID=${d.teams[1]!.id} USER_ID=${d.agents[0]!.id}`,
    `export ADMIN_EMAIL=${q(d.admin.email)} ADMIN_PASSWORD=${q(d.admin.password)}`,
    `export TOKEN=${q(d.adminToken)}`,
    'export AUTH="Authorization: Bearer $TOKEN"',
    '',
    '# Channel API (account API key)',
    `curl -s -w '\\n' "$BASE/channel-api/chats?queue=Espera" -H "Authorization: ApiKey $ACCOUNT_KEY"`,
    `curl -s -w '\\n' "$BASE/channel-api/users" -H "Authorization: ApiKey $ACCOUNT_KEY"`,
    `curl -s -w '\\n' "$BASE/channel-api/teams" -H "Authorization: ApiKey $ACCOUNT_KEY"`,
    `curl -s -w '\\n' -X POST "$BASE/channel-api/chats/$CHAT_ID/transfer/user" -H "Authorization: ApiKey $ACCOUNT_KEY" \\`,
    `  -H 'content-type: application/json' -d '{"userId":"'$USER_ID'"}'`,
    `curl -s -w '\\n' -X POST "$BASE/channel-api/chats/$CHAT_ID/transfer/team" -H "Authorization: ApiKey $ACCOUNT_KEY" \\`,
    `  -H 'content-type: application/json' -d '{"teamId":"'$TEAM_ID'","reasonCode":"demo","reason":"Tried the demo"}'`,
    '',
    '# Channel API: send a message (channel API key)',
    `curl -s -w '\\n' -X POST "$BASE/channel-api/messages/send" -H "x-channel-api-key: $CHANNEL_KEY" \\`,
    `  -H 'content-type: application/json' \\`,
    `  -d ${json({ contact: { value: '5511987654321', name: 'Cliente Demo' }, message: { type: 'text', text: { value: 'Olá! Seu pedido saiu para entrega.' } } })}`,
    '',
    '# Sandbox: play the customer (agent/admin API, the admin token)',
    `curl -s -w '\\n' -X POST "$BASE/api/sandbox/channels/$CHANNEL_ID/inbound" -H "$AUTH" \\`,
    `  -H 'content-type: application/json' -d ${json({ from: '5521912345678', name: 'Outra Cliente', text: 'Oi, preciso de ajuda' })}`,
    '',
  ];
  return lines.join('\n');
}
