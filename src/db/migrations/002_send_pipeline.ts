import { sql, type Kysely } from 'kysely';

/** The Channel API's send requests (the channel's request log) and media waiting to be uploaded. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
CREATE TABLE request_logs (
  request_id uuid PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  channel_id text NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
  status text NOT NULL CHECK (status IN ('queued', 'processing', 'sent', 'failed')),
  -- Cleared once older than 24 h, so the key may be used again (see the send service).
  idempotency_key text,
  flow_id text,
  metadata jsonb NOT NULL DEFAULT '{}',
  -- {type, value (normalized), name}
  contact jsonb NOT NULL,
  message_type text NOT NULL CHECK (message_type IN ('text', 'template', 'media')),
  template_name text,
  close_conversation boolean NOT NULL DEFAULT false,
  -- The prepared message (src/providers/types.ts), media without its bytes.
  payload jsonb NOT NULL,
  media_blob_id text,
  message_id text,
  provider_message_id text,
  -- {code, message, details?}
  error jsonb,
  attempts integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX request_logs_idempotency_key ON request_logs (channel_id, idempotency_key)
  WHERE idempotency_key IS NOT NULL;
CREATE INDEX request_logs_channel_idx ON request_logs (channel_id, created_at DESC, request_id DESC);
CREATE INDEX request_logs_channel_status_idx ON request_logs (channel_id, status, created_at DESC, request_id DESC);
CREATE INDEX request_logs_channel_flow_idx ON request_logs (channel_id, flow_id, created_at DESC, request_id DESC)
  WHERE flow_id IS NOT NULL;

CREATE TABLE media_blobs (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  mimetype text NOT NULL,
  filename text,
  bytes bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
`.execute(db);
}
