import { mkdir, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { makeDataDir, ROOT, spawnNode, MAIN, type Child } from '../helpers/processes.js';
import { freePorts } from '../helpers/ports.js';

// Browser tests of the web console: the built server (`node dist/src/main.js`, as `npm start` runs
// it) on the embedded PostgreSQL in a fresh data directory, and Debian's Chromium driven by
// playwright-core. Nothing is built here: `npm run build` comes first (`npm run test:e2e` checks).

export const CHROMIUM = process.env.ATENDE_CHROMIUM ?? '/usr/bin/chromium';
export const SCREENSHOTS = path.join(ROOT, 'test-results', 'screenshots');
export const ADMIN = { email: 'admin@e2e.atende.test', password: 'e2e-admin-password', name: 'Admin' };

/** Phone and laptop screens the console must work on. */
export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

/** Waits on a page: generous, the machine may be busy; no test asserts a duration. */
export const UI_TIMEOUT_MS = 20_000;

export interface ApiAnswer<T> {
  status: number;
  body: T;
}

/** A REST client with a user's token, for setting up what a test needs without clicking. */
export class ApiClient {
  constructor(
    readonly base: string,
    readonly token: string,
    readonly userId: string,
  ) {}

  async call<T = Record<string, unknown>>(method: string, p: string, body?: unknown): Promise<ApiAnswer<T>> {
    const res = await fetch(`${this.base}${p}`, {
      method,
      headers: {
        authorization: `Bearer ${this.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
  }

  /** The answer's body; throws with the server's message on anything but `expected`. */
  async ok<T = Record<string, unknown>>(method: string, p: string, body?: unknown, expected = [200, 201]) {
    const res = await this.call<T>(method, p, body);
    if (!expected.includes(res.status)) {
      throw new Error(`${method} ${p} answered ${res.status}: ${JSON.stringify(res.body)}`);
    }
    return res.body;
  }
}

export interface Person {
  id: string;
  name: string;
  email: string;
  password: string;
  api: ApiClient;
}

/** A page and what its browser reported that a test must not ignore. */
export interface TestPage {
  page: Page;
  context: BrowserContext;
  /** Console errors and uncaught exceptions so far, with the page's name. */
  errors: string[];
}

export interface E2E {
  url: string;
  gatewayUrl: string;
  browser: Browser;
  admin: Person;
  /** Server output so far (JSON log lines), for a failing test's message. */
  serverOutput(): string;
  /** Logs in through the REST API (no browser). */
  login(email: string, password: string): Promise<ApiClient>;
  createUser(opts: {
    name: string;
    role?: 'admin' | 'supervisor' | 'agent';
    email?: string;
  }): Promise<Person>;
  createTeam(name: string, members: string[]): Promise<{ id: string; name: string }>;
  createChannel(opts: {
    name: string;
    defaultTeamId: string;
    provider?: 'sandbox' | 'whatsapp-cloud';
  }): Promise<{ id: string; name: string }>;
  /** A customer message on a sandbox channel, as the simulator sends it; returns the chat id. */
  inbound(channelId: string, from: string, text: string, name?: string): Promise<string>;
  /**
   * Ends the gateway connections of the account's users (all, or one user's): with the session
   * (`disconnect`, nothing to recover), or only the connection (`transport`, recoverable).
   */
  disconnectSockets(userId?: string, mode?: 'disconnect' | 'transport'): Promise<number>;
  /**
   * A new browser context (its own cookies: one signed-in user) with one page; console errors and
   * uncaught exceptions are collected, and `close` fails when there are any not `allow`ed.
   */
  newPage(name: string, opts?: { viewport?: { width: number; height: number } }): Promise<TestPage>;
  /** Logs in through the console's form and waits for the signed-in shell. */
  loginUi(page: Page, person: { email: string; password: string }): Promise<void>;
  /** Saves `test-results/screenshots/<name>.png`. */
  screenshot(page: Page, name: string): Promise<string>;
  /** Throws when any page reported an error not matched by `allow`. */
  assertNoBrowserErrors(allow?: RegExp[]): void;
  close(): Promise<void>;
}

/**
 * Waits until a form control shows `value` (e.g. a draft arriving from another tab). The predicate
 * runs in the page; it is typed without DOM types, which the tests' TypeScript settings do not have.
 */
export async function waitForValue(locator: Locator, value: string): Promise<void> {
  const handle = await locator.elementHandle();
  await locator
    .page()
    .waitForFunction(([el, v]) => (el as { value?: string } | null)?.value === v, [handle, value] as const);
}

let unique = 0;
const uniq = () => `${Date.now().toString(36)}${(unique++).toString(36)}`;

/** The reasons a run cannot start, in plain words (nothing to build here). */
export function missingPrerequisites(): string[] {
  const missing: string[] = [];
  if (!existsSync(MAIN)) missing.push('dist/src/main.js is missing: run `npm run build`');
  if (!existsSync(path.join(ROOT, 'web', 'dist', 'index.html')))
    missing.push('web/dist is missing: run `npm run build`');
  if (!existsSync(CHROMIUM))
    missing.push(`${CHROMIUM} is missing: apt-get install chromium (or set ATENDE_CHROMIUM)`);
  return missing;
}

/**
 * Starts the built server on a fresh embedded database (no DATABASE_URL: the installation's default)
 * with its first admin, and Chromium. `env` adds settings for the server.
 */
export async function startE2E(opts: { env?: Record<string, string> } = {}): Promise<E2E> {
  const missing = missingPrerequisites();
  if (missing.length > 0) throw new Error(missing.join('\n'));
  await mkdir(SCREENSHOTS, { recursive: true });

  const dataDir = await makeDataDir();
  const [port, gatewayPort] = (await freePorts(2)) as [number, number];
  const child: Child = spawnNode(MAIN, [], {
    HOST: '127.0.0.1',
    PORT: String(port),
    GATEWAY_PORT: String(gatewayPort),
    ATENDE_DATA_DIR: dataDir,
    ATENDE_ADMIN_EMAIL: ADMIN.email,
    ATENDE_ADMIN_PASSWORD: ADMIN.password,
    ATENDE_TEST_ROUTES: '1',
    LOG_LEVEL: 'info',
    ...opts.env,
  });
  const url = `http://127.0.0.1:${port}`;
  let browser: Browser | null = null;
  const stopServer = async () => {
    if (child.proc.exitCode === null && child.proc.signalCode === null) {
      child.proc.kill('SIGTERM');
      const done = await Promise.race([
        child.exited.then(() => true),
        new Promise<false>((r) => setTimeout(() => r(false), 30_000)),
      ]);
      if (!done) child.proc.kill('SIGKILL');
      await child.exited;
    }
    await rm(dataDir, { recursive: true, force: true });
  };

  try {
    await child.waitForLog((l) => l.msg === 'Atende is running');
    await waitReady(url);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  } catch (err) {
    await browser?.close().catch(() => undefined);
    await stopServer();
    throw err;
  }

  const login = async (email: string, password: string): Promise<ApiClient> => {
    const res = await fetch(`${url}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    const body = (await res.json()) as { accessToken: string; user: { id: string } };
    if (res.status !== 200) throw new Error(`login of ${email} answered ${res.status}`);
    return new ApiClient(url, body.accessToken, body.user.id);
  };
  const adminApi = await login(ADMIN.email, ADMIN.password);
  const admin: Person = { id: adminApi.userId, ...ADMIN, api: adminApi };

  const pages: TestPage[] = [];
  const contexts: BrowserContext[] = [];
  const liveBrowser = browser;

  const e2e: E2E = {
    url,
    gatewayUrl: `http://127.0.0.1:${gatewayPort}`,
    browser: liveBrowser,
    admin,
    serverOutput: () => child.stdout().slice(-5000) + child.stderr().slice(-2000),
    login,
    async createUser({ name, role = 'agent', email }) {
      const password = `pw-${uniq()}-secret`;
      const address = email ?? `${name.toLowerCase().replace(/[^a-z0-9]+/g, '.')}.${uniq()}@e2e.atende.test`;
      const user = await adminApi.ok<{ id: string }>('POST', '/api/users', {
        name,
        email: address,
        password,
        role,
      });
      return { id: user.id, name, email: address, password, api: await login(address, password) };
    },
    async createTeam(name, members) {
      return adminApi.ok<{ id: string; name: string }>('POST', '/api/teams', { name, members });
    },
    async createChannel({ name, defaultTeamId, provider = 'sandbox' }) {
      return adminApi.ok<{ id: string; name: string }>('POST', '/api/channels', {
        name,
        provider,
        defaultTeamId,
      });
    },
    async inbound(channelId, from, text, name) {
      const res = await adminApi.ok<{ chatId: string }>(
        'POST',
        `/api/sandbox/channels/${channelId}/inbound`,
        {
          from,
          text,
          ...(name ? { name } : {}),
        },
      );
      return res.chatId;
    },
    async disconnectSockets(userId, mode) {
      const res = await adminApi.ok<{ disconnected: number }>('POST', '/api/test/gateway/disconnect', {
        ...(userId ? { userId } : {}),
        ...(mode ? { mode } : {}),
      });
      return res.disconnected;
    },
    async newPage(name, o = {}) {
      const context = await liveBrowser.newContext({
        viewport: o.viewport ?? DESKTOP,
        locale: 'pt-BR',
        timezoneId: 'America/Sao_Paulo',
      });
      contexts.push(context);
      const page = await context.newPage();
      page.setDefaultTimeout(UI_TIMEOUT_MS);
      const tp: TestPage = { page, context, errors: [] };
      page.on('console', (msg) => {
        if (msg.type() === 'error')
          tp.errors.push(`[${name}] console: ${msg.text()} (${msg.location().url})`);
      });
      page.on('pageerror', (err) => tp.errors.push(`[${name}] uncaught: ${err.stack ?? err.message}`));
      pages.push(tp);
      return tp;
    },
    async loginUi(page, person) {
      await page.goto(`${url}/`);
      await page.getByLabel(/^(E-mail|Email)$/).fill(person.email);
      await page.getByLabel(/^(Senha|Password)$/).fill(person.password);
      await page.getByRole('button', { name: /^(Entrar|Log in)$/ }).click();
      await page.locator('.shell').waitFor();
    },
    async screenshot(page, name) {
      const file = path.join(SCREENSHOTS, `${name}.png`);
      await page.screenshot({ path: file, fullPage: false });
      return file;
    },
    assertNoBrowserErrors(allow = []) {
      const errors = pages.flatMap((p) => p.errors).filter((e) => !allow.some((re) => re.test(e)));
      if (errors.length > 0) throw new Error(`the browser reported errors:\n${errors.join('\n')}`);
    },
    async close() {
      for (const c of contexts) await c.close().catch(() => undefined);
      await liveBrowser.close().catch(() => undefined);
      await stopServer();
    },
  };
  return e2e;
}

async function waitReady(url: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const res = await fetch(`${url}/readyz`);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url}/readyz did not answer 200 within 60 s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
