import {
  DEFAULT_MIGRATION_TABLE,
  Migrator,
  sql,
  type Kysely,
  type Migration,
  type MigrationProvider,
  type MigrationResultSet,
} from 'kysely';
import * as m001 from './migrations/001_foundation.js';
import * as m002 from './migrations/002_send_pipeline.js';
import * as m003 from './migrations/003_inbound_webhooks.js';
import * as m004 from './migrations/004_request_log_chat.js';
import * as m005 from './migrations/005_events.js';
import * as m006 from './migrations/006_webhooks.js';
import * as m007 from './migrations/007_send_queue.js';
import * as m008 from './migrations/008_send_lanes_hot.js';
import * as m009 from './migrations/009_event_cursors.js';
import * as m010 from './migrations/010_user_token_version.js';
import * as m011 from './migrations/011_contact_user_id.js';
import * as m012 from './migrations/012_media_store.js';
import * as m013 from './migrations/013_channel_health_read_receipts.js';
import * as m014 from './migrations/014_chat_search.js';
import * as m015 from './migrations/015_customer_window.js';
import * as m016 from './migrations/016_jobs_pgboss10.js';
import * as m017 from './migrations/017_webhook_delivery_queue.js';
import * as m018 from './migrations/018_event_writes.js';
import * as m019 from './migrations/019_event_horizon.js';
import * as m020 from './migrations/020_chat_count_slots.js';
import * as m021 from './migrations/021_chat_totals.js';
import * as m022 from './migrations/022_counter_own_slots.js';
import * as m023 from './migrations/023_counter_statement_trigger.js';
import * as m024 from './migrations/024_message_sender.js';
import * as m025 from './migrations/025_delivery_details.js';
import * as m026 from './migrations/026_media_blob_chunks.js';
import * as m027 from './migrations/027_customers.js';
import * as m028 from './migrations/028_labels.js';
import * as m029 from './migrations/029_labels_manage.js';
import * as m030 from './migrations/030_chat_list_views.js';
import * as m033 from './migrations/033_customer_details.js';
import * as m037 from './migrations/037_chat_closed_by.js';
import * as m038 from './migrations/038_message_search.js';
import * as m041 from './migrations/041_canned_responses.js';
import * as m043 from './migrations/043_chat_notes.js';
import * as m044 from './migrations/044_chat_activity.js';
import * as m045 from './migrations/045_notification_preferences.js';
import * as m046 from './migrations/046_typing_indicators.js';
import * as m047 from './migrations/047_chat_snooze.js';
import * as m048 from './migrations/048_supervisors_step_in.js';
import * as m050 from './migrations/050_message_search_vector.js';
import * as m051 from './migrations/051_label_totals.js';
import * as m052 from './migrations/052_contact_search_walk.js';
import * as m053 from './migrations/053_team_business_hours.js';
import * as m054 from './migrations/054_automation_markers.js';
import * as m055 from './migrations/055_team_assignment.js';
import * as m056 from './migrations/056_channel_flows.js';
import * as m057 from './migrations/057_bots.js';
import * as m058 from './migrations/058_slas.js';
import * as m059 from './migrations/059_report_rollups.js';
import * as m060 from './migrations/060_data_protection.js';
import * as m061 from './migrations/061_audit_log.js';
import * as m062 from './migrations/062_contact_search_statistics.js';
import * as m063 from './migrations/063_board_index.js';
import * as m064 from './migrations/064_label_list_order.js';
import * as m065 from './migrations/065_message_search_periods.js';

/** Versioned migrations, in order. Names are permanent: never rename or edit one that has shipped. */
const migrations: Record<string, Migration> = {
  '001_foundation': m001,
  '002_send_pipeline': m002,
  '003_inbound_webhooks': m003,
  '004_request_log_chat': m004,
  '005_events': m005,
  '006_webhooks': m006,
  '007_send_queue': m007,
  '008_send_lanes_hot': m008,
  '009_event_cursors': m009,
  '010_user_token_version': m010,
  '011_contact_user_id': m011,
  '012_media_store': m012,
  '013_channel_health_read_receipts': m013,
  '014_chat_search': m014,
  '015_customer_window': m015,
  '016_jobs_pgboss10': m016,
  '017_webhook_delivery_queue': m017,
  '018_event_writes': m018,
  '019_event_horizon': m019,
  '020_chat_count_slots': m020,
  '021_chat_totals': m021,
  '022_counter_own_slots': m022,
  '023_counter_statement_trigger': m023,
  '024_message_sender': m024,
  '025_delivery_details': m025,
  '026_media_blob_chunks': m026,
  '027_customers': m027,
  '028_labels': m028,
  '029_labels_manage': m029,
  '030_chat_list_views': m030,
  '033_customer_details': m033,
  '037_chat_closed_by': m037,
  '038_message_search': m038,
  '041_canned_responses': m041,
  '043_chat_notes': m043,
  '044_chat_activity': m044,
  '045_notification_preferences': m045,
  '046_typing_indicators': m046,
  '047_chat_snooze': m047,
  '048_supervisors_step_in': m048,
  '050_message_search_vector': m050,
  '051_label_totals': m051,
  '052_contact_search_walk': m052,
  '053_team_business_hours': m053,
  '054_automation_markers': m054,
  '055_team_assignment': m055,
  '056_channel_flows': m056,
  '057_bots': m057,
  '058_slas': m058,
  '059_report_rollups': m059,
  '060_data_protection': m060,
  '061_audit_log': m061,
  '062_contact_search_statistics': m062,
  '063_board_index': m063,
  '064_label_list_order': m064,
  '065_message_search_periods': m065,
};

class StaticProvider implements MigrationProvider {
  /** `extra`: stand-ins for executed migrations this release does not know (see `migrateToLatest`). */
  constructor(private readonly extra: Record<string, Migration> = {}) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    return { ...migrations, ...this.extra };
  }
}

/** Names sort in the order migrations apply (Kysely runs them by name), whatever order they landed in. */
export const LATEST_MIGRATION = Object.keys(migrations).sort().at(-1) ?? '';

/** Where a node says that the database is ahead of it (a newer release migrated it). */
export interface MigrationLog {
  info(details: Record<string, unknown>, message: string): void;
  warn(details: Record<string, unknown>, message: string): void;
}

export interface MigrateOptions {
  logger?: MigrationLog;
}

/**
 * Applies pending migrations; Kysely's migration lock makes concurrent node start-ups safe, and
 * Postgres's transactional DDL makes the batch all or nothing.
 *
 * A database a newer release already migrated holds executed migrations this code does not know.
 * Kysely refuses those ("corrupted migrations"); during a rolling upgrade that would keep every node
 * of the previous release from (re)starting. Migrations are expand-only within a release
 * (docs/adr/0096-rolling-upgrades.md), so the schema they left still serves this code: the node logs
 * a warning and starts, applying its own pending ones as usual.
 */
export async function migrateToLatest<T>(db: Kysely<T>, options: MigrateOptions = {}): Promise<void> {
  // Not `migrateTo(LATEST_MIGRATION)`: with the latest already applied, Kysely would call the
  // database up to date and skip an earlier one still pending (a feature that landed later).
  await run(db, options, (m) => m.migrateToLatest());
}

/**
 * Applies the migrations up to and including `name` (an earlier version's schema, for upgrade tests).
 * Refuses a database with migrations it does not know: going down to `name` past them could undo
 * this release's migrations under a newer release's.
 */
export async function migrateTo<T>(db: Kysely<T>, name: string): Promise<void> {
  await run(db, { strict: true }, (m) => m.migrateTo(name));
}

/** Executed migrations this code does not know, in name order; none before the first migration. */
export async function unknownExecutedMigrations<T>(db: Kysely<T>): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`SELECT name FROM ${sql.table(DEFAULT_MIGRATION_TABLE)}`
    .execute(db)
    .catch((err: unknown) => {
      // undefined_table: the first migration run creates it; a fresh database has none.
      if ((err as { code?: unknown }).code === '42P01') return { rows: [] };
      throw err;
    });
  return rows
    .map((r) => r.name)
    .filter((name) => !Object.hasOwn(migrations, name))
    .sort();
}

/** A stand-in for a newer release's executed migration: listed so Kysely accepts the table, never run. */
function standIn(name: string): Migration {
  return {
    up: () => Promise.reject(new Error(`migration ${name} belongs to a newer release`)),
  };
}

/** Kysely's refusal of an executed migration its provider does not list. */
const MISSING = /corrupted migrations: previously executed migration .* is missing/;

async function run<T>(
  db: Kysely<T>,
  options: MigrateOptions & { strict?: boolean },
  step: (m: Migrator) => Promise<MigrationResultSet>,
): Promise<void> {
  // The unknown names are read before Kysely takes its lock; a newer node migrating in between
  // makes Kysely refuse the run (nothing applied), and the next attempt reads them again.
  for (let attempt = 1; ; attempt++) {
    const unknown = options.strict ? [] : await unknownExecutedMigrations(db);
    const started = Date.now();
    const { error, results } = await step(
      migratorOf(db, Object.fromEntries(unknown.map((n) => [n, standIn(n)]))),
    );
    if (!options.strict && error instanceof Error && MISSING.test(error.message) && attempt < 3) continue;
    const failed = results?.find((r) => r.status === 'Error');
    if (error || failed) {
      const reason = error instanceof Error ? error.message : String(error ?? '');
      throw new Error(`Database migration ${failed?.migrationName ?? ''} failed: ${reason}`);
    }
    const applied = (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
    // When the schema changed under running nodes (a rolling upgrade), and how long its locks were held.
    if (applied.length > 0) options.logger?.info({ applied, ms: Date.now() - started }, 'database migrated');
    if (unknown.length > 0) {
      options.logger?.warn(
        { unknownMigrations: unknown, applied },
        'the database has migrations a newer release applied; running on their (expand-only) schema',
      );
    }
    return;
  }
}

function migratorOf<T>(db: Kysely<T>, extra: Record<string, Migration> = {}): Migrator {
  return new Migrator({
    db: db as Kysely<unknown>,
    provider: new StaticProvider(extra),
    // Features developed side by side land in any order; each migration stands on its own.
    allowUnorderedMigrations: true,
  });
}

export async function migrationsApplied<T>(db: Kysely<T>): Promise<boolean> {
  const migrator = new Migrator({ db: db as Kysely<unknown>, provider: new StaticProvider() });
  const list = await migrator.getMigrations();
  return list.every((m) => m.executedAt !== undefined);
}
