import type { TSchema } from '@sinclair/typebox';
import {
  AckErrorSchema,
  CLIENT_EVENTS,
  envelopeSchema,
  EVENT_NAMES,
  EVENT_ROOMS,
  SCHEMA_VERSION,
  SESSION_READY,
  SessionReadySchema,
  type EventCatalogue,
} from './catalogue.js';

/** TypeBox schemas are JSON Schema once their symbol-keyed metadata is dropped. */
const plain = (schema: TSchema): Record<string, unknown> =>
  JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;

const key = (name: string) => name.replace(/[^A-Za-z0-9]+/g, '_');

/**
 * The event catalogue as an AsyncAPI 3 document, built from the schemas the code emits with: each
 * server event (its rooms and its envelope), `session.ready`, and the client events with their
 * acknowledgements. Served at `/docs/events.json`.
 */
export function asyncApiDocument(catalogue: EventCatalogue): Record<string, unknown> {
  const channels: Record<string, unknown> = {};
  const operations: Record<string, unknown> = {};
  const messages: Record<string, unknown> = {};

  for (const name of EVENT_NAMES) {
    const k = key(name);
    const data = catalogue[name].data;
    messages[k] = {
      name,
      title: name,
      summary: data.description,
      description: `Rooms: ${EVENT_ROOMS[name]}. Also in the resync feed \`GET /api/events\`.`,
      payload: plain(envelopeSchema(name, data)),
    };
    channels[k] = { address: name, messages: { [k]: { $ref: `#/components/messages/${k}` } } };
    operations[`receive_${k}`] = {
      action: 'receive',
      channel: { $ref: `#/channels/${k}` },
      summary: `${data.description} (rooms: ${EVENT_ROOMS[name]})`,
    };
  }

  const ready = key(SESSION_READY);
  messages[ready] = {
    name: SESSION_READY,
    title: SESSION_READY,
    summary: 'First packet of every connection, recovered or not; no envelope, not in the log',
    payload: plain(SessionReadySchema),
  };
  channels[ready] = {
    address: SESSION_READY,
    messages: { [ready]: { $ref: `#/components/messages/${ready}` } },
  };
  operations[`receive_${ready}`] = { action: 'receive', channel: { $ref: `#/channels/${ready}` } };

  for (const [name, def] of Object.entries(CLIENT_EVENTS)) {
    messages[name] = {
      name,
      title: name,
      summary: def.ack,
      payload: plain(def.argument),
    };
    channels[name] = { address: name, messages: { [name]: { $ref: `#/components/messages/${name}` } } };
    operations[`send_${name}`] = {
      action: 'send',
      channel: { $ref: `#/channels/${name}` },
      summary: `Acknowledgement: ${def.ack}; refusals answer ${JSON.stringify(plain(AckErrorSchema))}`,
    };
  }

  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Atende real-time events',
      version: '1.0.0',
      description:
        `Socket.IO v4 gateway (own port, path \`/socket.io\`) and event log. Every server event is an envelope ` +
        `\`{id, event, schemaVersion: ${SCHEMA_VERSION}, seq, occurredAt, accountId, data}\`; \`seq\` increases in ` +
        'commit order within an account. Events reach a connection only through the rooms it joined with the ' +
        'client events. Token: header `Authorization: Bearer`, else `auth.token`, else cookie `access_token`; ' +
        'without one the connection is accepted but every subscription is refused; an invalid one gets ' +
        '`connect_error` `unauthorized`. Recovery window: 2 minutes; after every `connect`, re-emit the ' +
        'subscriptions; when `recovered` is false, resync with `GET /api/events?after=<last seq>`. The same ' +
        'envelopes are POSTed to outgoing webhooks (`/api/webhooks`), signed: `Atende-Signature: t=<unix>,' +
        'v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`, with `Atende-Delivery` (stable across retries) and ' +
        '`Atende-Event`.',
    },
    defaultContentType: 'application/json',
    servers: {
      gateway: {
        host: '{host}:{port}',
        protocol: 'ws',
        description: 'Socket.IO v4 (Engine.IO 4), path /socket.io',
        variables: { host: { default: 'localhost' }, port: { default: '3001' } },
      },
    },
    channels,
    operations,
    components: { messages },
  };
}
