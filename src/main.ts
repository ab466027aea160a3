#!/usr/bin/env node
import { pino } from 'pino';
import { ConfigError, loadConfig } from './config.js';
import { startServer, type RunningServer } from './server.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const logger = pino({
    level: config.logLevel,
    redact: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-channel-api-key"]'],
  });
  // Signals are handled from the start: a Ctrl-C during start-up lets the start finish, then stops
  // everything in order (the embedded PostgreSQL, in a process group of its own, does not get it).
  let server: RunningServer | null = null;
  let stopping = false;
  const shutdown = (running: RunningServer) => void running.close().then(() => process.exit(0));
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 20_000);
    force.unref();
    if (server) shutdown(server);
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  // Closing the terminal: stop cleanly too, rather than dying with PostgreSQL left running.
  process.on('SIGHUP', () => stop('SIGHUP'));

  try {
    server = await startServer(config, logger);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    logger.fatal({ err: reason }, 'start-up failed');
    // Also in plain words on stderr, for whoever is reading a terminal rather than the JSON log.
    process.stderr.write(`Atende could not start: ${reason}\n`);
    process.exit(1);
  }
  if (stopping) return shutdown(server);
  logger.info({ url: server.url, roles: config.roles }, 'Atende is running');
}

void main();
