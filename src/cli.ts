#!/usr/bin/env node
import { pino, type Logger } from 'pino';
import { ConfigError, loadConfig, type Config } from './config.js';
import { DataDirInUseError } from './db/embedded-data-dir.js';
import { openDatabase, startCore } from './server.js';
import type { RepairReport } from './modules/contacts/index.js';
import { createDemo, demoBaseUrl, formatDemo } from './demo.js';

const USAGE = `Usage: atende <command>

Commands:
  demo [--json]   Create a ready-to-try demo account (admin, two agents, two teams, a sandbox
                  channel with its channel API key, an account API key with every scope) and
                  print the logins, the keys and curl commands to try them. Each run creates
                  another demo account; the keys are shown only this once.
  admin create --email <email> [--name <name>] [--account <account name>]
                  Create an account and its admin: the first admin of a new installation.
                  The password (8 to 200 characters) is read from the standard input:
                  prompted, not shown, in a terminal; or piped in.
  migrate         Apply pending database migrations and exit.
  doctor [--dry-run] [--json]
                  Check that every contact's messages came from one customer. Finds contacts
                  that customers of different numbers were merged into (a number that is not
                  the contact's nor its Brazilian ninth-digit spelling), reports them, and
                  splits them: each customer gets their own contact and chats, their messages
                  move there, and the account's admins are notified. --dry-run only reports;
                  --json prints the report as JSON. Safe to run again: a second run finds
                  nothing. The first run reads older messages' senders from the stored
                  webhooks, which takes a while on a large database (docs/whatsapp.md).
  help            Show this help.

The commands use the server's configuration: DATABASE_URL, or else the embedded PostgreSQL in
ATENDE_DATA_DIR (default ./.data). Only one process can use the embedded database at a time, so
stop the server before running a command against it (or run the command before starting it).
`;

class UsageError extends Error {}
/** A command that cannot do what was asked, for a reason the operator can act on. */
class CommandError extends Error {}

async function demo(config: Config, logger: Logger, args: string[], portGiven: boolean): Promise<void> {
  const unknown = args.filter((a) => a !== '--json');
  if (unknown.length > 0) throw new UsageError(`Unknown option for demo: ${unknown.join(' ')}`);
  // The demo serves nothing and needs no Redis; the rate limiter keeps to memory.
  const core = await startCore({ ...config, redisUrl: null }, logger);
  try {
    const account = await createDemo(core.services, await demoBaseUrl(config, portGiven, core.services));
    process.stdout.write(
      args.includes('--json') ? `${JSON.stringify(account, null, 2)}\n` : formatDemo(account),
    );
  } finally {
    await core.close();
  }
}

/** `--name value` options; anything else is a usage error. */
function options(args: string[], allowed: string[], command: string): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const name = args[i]!.replace(/^--/, '');
    const value = args[i + 1];
    if (!args[i]!.startsWith('--') || !allowed.includes(name) || value === undefined) {
      throw new UsageError(`Unknown option for ${command}: ${args.slice(i).join(' ')}`);
    }
    out.set(name, value);
    i++;
  }
  return out;
}

/** The whole standard input; in a terminal, a prompt whose answer is not echoed. */
async function readPassword(): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) {
    let text = '';
    for await (const chunk of stdin) text += String(chunk);
    return text.replace(/\r?\n$/, '');
  }
  process.stderr.write('Password: ');
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  return new Promise((resolve) => {
    let typed = '';
    const onData = (key: string) => {
      for (const ch of key) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') {
          stdin.setRawMode(false);
          stdin.off('data', onData);
          stdin.pause();
          process.stderr.write('\n');
          return resolve(typed);
        }
        if (ch === '\u0003') process.exit(130);
        typed = ch === '\u007f' ? typed.slice(0, -1) : typed + ch;
      }
    };
    stdin.on('data', onData);
  });
}

async function admin(config: Config, logger: Logger, args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  if (sub !== 'create') throw new UsageError(`Unknown admin command: ${sub ?? '(none)'}`);
  const opts = options(rest, ['email', 'name', 'account'], 'admin create');
  const email = opts.get('email')?.trim().toLowerCase();
  if (!email) throw new UsageError('admin create needs --email');
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new UsageError(`Not an email address: ${email}`);
  const pw = await readPassword();
  if (pw.length < 8 || pw.length > 200) throw new UsageError('The password must have 8 to 200 characters');
  const core = await startCore({ ...config, redisUrl: null, adminEmail: null, adminPassword: null }, logger);
  try {
    if (await core.services.repos.users.emailTaken(email)) {
      throw new CommandError(`a user with the email ${email} already exists`);
    }
    const accountName = opts.get('account') ?? 'Atende';
    await core.services.accounts.createWithAdmin({
      accountName,
      adminName: opts.get('name') ?? 'Admin',
      email,
      password: pw,
    });
    process.stdout.write(
      `Created account "${accountName}" and its admin ${email}. Log in with that email and password.\n`,
    );
  } finally {
    await core.close();
  }
}

async function migrate(config: Config, logger: Logger, args: string[]): Promise<void> {
  if (args.length > 0) throw new UsageError(`Unknown option for migrate: ${args.join(' ')}`);
  const database = await openDatabase(config, logger);
  await database.close();
  process.stdout.write('Database migrations are up to date.\n');
}

/** The doctor's report for a person: what was found and what was (or would be) done. */
function formatDoctor(r: RepairReport): string {
  const quoted = (value: string, name: string | null) => (name ? `${value} "${name}"` : value);
  const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  const lines = [
    r.dryRun ? 'Dry run: nothing is changed.' : 'Checked every contact against the senders of its messages.',
  ];
  if (r.withoutSender > 0)
    lines.push(
      r.dryRun
        ? `${count(r.withoutSender, 'older message has', 'older messages have')} no recorded sender; the stored webhooks were read for them.`
        : `${count(r.withoutSender, 'older message had', 'older messages had')} no recorded sender; ${r.sendersRecorded} were read from the stored webhooks and recorded.`,
    );
  const failed = r.failures.map((x) => `  Contact ${x.contactId} could not be checked: ${x.error}`);
  if (r.findings.length === 0) {
    lines.push(
      r.failures.length === 0
        ? 'No contact has messages from more than one customer: nothing to repair.'
        : 'No other contact has messages from more than one customer.',
      ...failed,
      '',
    );
    return lines.join('\n');
  }
  lines.push(
    `${count(r.findings.length, 'contact has', 'contacts have')} messages from more than one customer:`,
  );
  for (const f of r.findings) {
    lines.push(
      '',
      `  Account "${f.accountName ?? f.accountId}", channel "${f.channelName}" (${f.channelId})`,
      `  Contact ${quoted(f.contact.value, f.contact.name)} (${f.contact.id}): ${count(f.ownMessages, 'message', 'messages')} of its own number`,
    );
    for (const c of f.customers) {
      const whole = c.chats.filter((x) => x.into === x.from).length;
      const chats = [
        whole > 0 ? `${count(whole, 'chat', 'chats')} moved whole` : '',
        c.chats.length > whole ? `${count(c.chats.length - whole, 'chat', 'chats')} split` : '',
      ].filter(Boolean);
      const what =
        f.action === 'renumber'
          ? `the contact ${r.dryRun ? 'would take' : 'took'} this number`
          : `${r.dryRun ? 'would move' : 'moved'} to ${c.contactId ? `contact ${c.contactId}` : 'a new contact'}` +
            (chats.length > 0 ? ` (${chats.join(', ')})` : '');
      lines.push(
        `    ${count(c.messages, 'message', 'messages')} of ${quoted(c.value, c.name)} (from ${c.address}): ${what}`,
      );
    }
  }
  if (failed.length > 0) lines.push('', ...failed);
  lines.push(
    '',
    r.dryRun
      ? 'Run `atende doctor` without --dry-run to split them; the admins of each account are notified.'
      : 'Repaired. The admins of each account were notified; agents see the new chats in their lists.',
    '',
  );
  return lines.join('\n');
}

async function doctor(config: Config, logger: Logger, args: string[]): Promise<void> {
  const unknown = args.filter((a) => a !== '--dry-run' && a !== '--json');
  if (unknown.length > 0) throw new UsageError(`Unknown option for doctor: ${unknown.join(' ')}`);
  const core = await startCore({ ...config, redisUrl: null, adminEmail: null, adminPassword: null }, logger);
  try {
    const report = await core.services.contactRepair.run({ dryRun: args.includes('--dry-run') });
    process.stdout.write(
      args.includes('--json') ? `${JSON.stringify(report, null, 2)}\n` : formatDoctor(report),
    );
    if (report.failures.length > 0)
      throw new CommandError(
        `${report.failures.length} contact(s) could not be checked; run it again (the others are done)`,
      );
  } finally {
    await core.close();
  }
}

async function main(argv: string[]): Promise<number> {
  const [command = 'help', ...args] = argv;
  if (command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(USAGE);
    return 0;
  }
  if (!['demo', 'migrate', 'admin', 'doctor'].includes(command)) {
    process.stderr.write(`Unknown command: ${command}\n\n${USAGE}`);
    return 2;
  }

  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      return 2;
    }
    throw err;
  }
  // Logs go to stderr so stdout holds only the command's output; quiet unless LOG_LEVEL asks.
  const logger = pino(
    { level: process.env.LOG_LEVEL ? config.logLevel : 'warn' },
    pino.destination({ dest: 2, sync: true }),
  );

  try {
    if (command === 'demo') await demo(config, logger, args, process.env.PORT !== undefined);
    else if (command === 'admin') await admin(config, logger, args);
    else if (command === 'doctor') await doctor(config, logger, args);
    else await migrate(config, logger, args);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`${err.message}\n\n${USAGE}`);
      return 2;
    }
    if (err instanceof DataDirInUseError) {
      process.stderr.write(
        `atende ${command}: the embedded database in ${config.dataDir} is in use by ` +
          `${err.ownerPid ? `a running Atende server (pid ${err.ownerPid})` : 'another process'}. ` +
          'Only one process can use it at a time: ' +
          `stop the server, run \`atende ${command}\`, then start the server again ` +
          `(or set DATABASE_URL to a PostgreSQL server both can share).\n`,
      );
      return 1;
    }
    if (err instanceof CommandError) {
      process.stderr.write(`atende ${command}: ${err.message}\n`);
      return 1;
    }
    process.stderr.write(`atende ${command} failed: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}

// Interrupted, a command just leaves: on the way out the embedded PostgreSQL (in a process group of
// its own, so the terminal's Ctrl-C does not reach it) is told to shut down.
for (const [signal, status] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
  ['SIGHUP', 129],
] as const) {
  process.on(signal, () => process.exit(status));
}
const code = await main(process.argv.slice(2));
// Leave once the output is written; nothing else is meant to keep the process alive.
process.stdout.write('', () => process.exit(code));
