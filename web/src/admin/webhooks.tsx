import { useState } from 'react';
import { del, get, patch, post } from '../api';
import { textOr, useI18n } from '../i18n';
import { Link } from '../router';
import type { Webhook } from '../models';
import { CheckList, FormErrors, TextField } from './fields';
import { ConfirmDialog, FormDialog, SecretDialog } from './form-dialog';
import { AdminListPage, Badge, type Column } from './list-page';
import { HookRowActions } from './hook-row-actions';
import { useList, useLoad, useRowAction, useSubmit } from './load';

/** `*` subscribes to every event, including ones added to the catalogue later. */
const ALL = '*';
/** Used when the catalogue cannot be read; the server checks the names in any case. */
const KNOWN_EVENTS = [
  'message.upsert',
  'message.update',
  'chat.new',
  'chat.update',
  'chat.queue',
  'chat.capture',
  'chat.transfer',
  'chat.close',
  'chat.labels',
  'customer.labels',
  'label.create',
  'label.update',
  'label.delete',
  'chat.reopen',
  'chat.split',
  'note.new',
  'note.update',
  'note.delete',
  'notification.new',
  'draft.update',
  'team.business_hours',
  'chat.bot_released',
  'bot.update',
  'team.assignment',
  'user.availability',
  'channel.flow',
  'chat.csat',
];
interface CatalogueEvent {
  name: string;
  summary: string;
}

/**
 * The server events of the catalogue (/docs/events.json, AsyncAPI): the channels of its `receive`
 * operations, without `session.ready`, which is a connection's first packet and not an event.
 */
async function loadCatalogue(): Promise<CatalogueEvent[]> {
  interface AsyncApi {
    operations?: Record<string, { action?: string; channel?: { $ref?: string } }>;
    channels?: Record<string, { address?: string }>;
    components?: { messages?: Record<string, { summary?: string }> };
  }
  try {
    const doc = await get<AsyncApi>('/docs/events.json');
    const events: CatalogueEvent[] = [];
    for (const op of Object.values(doc.operations ?? {})) {
      const key = op.action === 'receive' ? op.channel?.$ref?.split('/').pop() : undefined;
      const name = key ? doc.channels?.[key]?.address : undefined;
      if (!key || !name || name === 'session.ready') continue;
      events.push({ name, summary: doc.components?.messages?.[key]?.summary ?? '' });
    }
    if (events.length > 0) return events;
  } catch {
    // fall through to the known names
  }
  return KNOWN_EVENTS.map((name) => ({ name, summary: '' }));
}

/**
 * Whether a webhook delivers: enabled, failing since when, paused, or disabled after failures. A bot's
 * endpoint is a webhook, so the bots page shows it too.
 */
export function StatusBadge(props: { hook: Pick<Webhook, 'enabled' | 'disabledReason' | 'failingSince'> }) {
  const { t, time } = useI18n();
  const { hook } = props;
  if (!hook.enabled)
    return (
      <Badge tone={hook.disabledReason === 'failing' ? 'bad' : 'neutral'}>
        {hook.disabledReason === 'failing' ? t('hooks.disabledFailing') : t('hooks.paused')}
      </Badge>
    );
  if (hook.failingSince)
    return <Badge tone="warn">{t('hooks.failingSince', { time: time(hook.failingSince) })}</Badge>;
  return <Badge tone="ok">{t('hooks.enabled')}</Badge>;
}

/** Outgoing webhooks: list, create (secret shown once), change events, pause or resume, delete. */
export function WebhooksPage() {
  const { t, time } = useI18n();
  const hooks = useList<Webhook>('/api/webhooks');
  const catalogue = useLoad(loadCatalogue, 'catalogue');
  const [dialog, setDialog] = useState<{ kind: 'create' } | { kind: 'edit'; hook: Webhook } | null>(null);
  const [secret, setSecret] = useState<{ value: string; rotated: boolean } | null>(null);
  const [deleting, setDeleting] = useState<Webhook | null>(null);
  const row = useRowAction();

  // The newest first, as the API lists them.
  const saved = (hook: Webhook) => hooks.upsert(hook, { first: true });

  const toggle = (hook: Webhook) =>
    row.run(hook.id, async () =>
      saved(await patch<Webhook>(`/api/webhooks/${hook.id}`, { enabled: !hook.enabled })),
    );

  const columns: Column<Webhook>[] = [
    {
      key: 'url',
      label: t('hooks.url'),
      render: (h) => (
        <span>
          <Link href={`/admin/webhooks/${h.id}`} className="adm-link adm-break">
            {h.url}
          </Link>
          <small className="muted adm-block">{t('hooks.secretEnds', { hint: h.secretHint })}</small>
        </span>
      ),
    },
    {
      key: 'events',
      label: t('hooks.events'),
      render: (h) => (
        <ul className="adm-chips">
          {h.events.map((e) => (
            <li key={e} className="adm-chip">
              {e === ALL ? t('hooks.allEvents') : <code>{e}</code>}
            </li>
          ))}
        </ul>
      ),
    },
    {
      key: 'status',
      label: t('common.status'),
      render: (h) => (
        <span>
          <StatusBadge hook={h} />
          {h.lastSuccessAt && (
            <small className="muted adm-block">
              {t('hooks.lastSuccess', { time: time(h.lastSuccessAt) })}
            </small>
          )}
        </span>
      ),
    },
    { key: 'created', label: t('common.createdAt'), render: (h) => time(h.createdAt) },
    {
      key: 'actions',
      label: t('common.actions'),
      className: 'adm-cell-actions',
      render: (h) => (
        <HookRowActions
          webhookId={h.id}
          name={h.url}
          enabled={h.enabled}
          busy={row.busy === h.id}
          errors={row.errorsOf(h.id)}
          onEdit={() => setDialog({ kind: 'edit', hook: h })}
          onToggle={() => void toggle(h)}
          onDelete={() => setDeleting(h)}
        />
      ),
    },
  ];

  const events = catalogue.data ?? [];
  return (
    <AdminListPage
      title={t('hooks.title')}
      newLabel={t('hooks.new')}
      onNew={() => setDialog({ kind: 'create' })}
      list={hooks}
      columns={columns}
      rowKey={(h) => h.id}
      rowClass={(h) => (h.enabled ? undefined : 'adm-dim')}
      empty={t('hooks.empty')}
      testId="webhooks-table"
    >
      {dialog?.kind === 'create' && (
        <WebhookDialog
          events={events}
          onClose={() => setDialog(null)}
          onSaved={(h) => {
            setDialog(null);
            saved(h);
            if (h.secret) setSecret({ value: h.secret, rotated: false });
          }}
        />
      )}
      {dialog?.kind === 'edit' && (
        <WebhookDialog
          hook={dialog.hook}
          events={events}
          onClose={() => setDialog(null)}
          onSaved={(h) => {
            setDialog(null);
            saved(h);
            if (h.secret) setSecret({ value: h.secret, rotated: true });
          }}
        />
      )}
      {secret && (
        <SecretDialog
          title={secret.rotated ? t('hooks.secretRotated') : t('hooks.secretTitle')}
          label={t('hooks.secretShown')}
          value={secret.value}
          notes={[t('hooks.secretWarning')]}
          onClose={() => setSecret(null)}
          testId="webhook-secret"
        />
      )}
      {deleting && (
        <ConfirmDialog
          title={t('common.delete')}
          message={t('hooks.deleteConfirm', { url: deleting.url })}
          confirmLabel={t('common.delete')}
          danger
          onConfirm={async () => {
            await del(`/api/webhooks/${deleting.id}`);
            hooks.remove(deleting.id);
          }}
          onClose={() => setDeleting(null)}
        />
      )}
    </AdminListPage>
  );
}

function WebhookDialog(props: {
  hook?: Webhook;
  events: CatalogueEvent[];
  onClose: () => void;
  onSaved: (h: Webhook) => void;
}) {
  const { t } = useI18n();
  const hook = props.hook;
  const [url, setUrl] = useState(hook?.url ?? '');
  const [all, setAll] = useState(hook?.events.includes(ALL) ?? false);
  const [events, setEvents] = useState<string[]>(hook?.events.filter((e) => e !== ALL) ?? []);
  const [secret, setSecret] = useState('');
  const [enabled, setEnabled] = useState(hook?.enabled ?? true);
  const [rotate, setRotate] = useState(false);
  const submit = useSubmit(['url', 'events', 'secret', 'enabled', 'rotateSecret']);
  const { byField } = submit.errors;
  // Names the hook has that the catalogue no longer lists stay visible, so they can be unchecked.
  const names = [
    ...props.events.map((e) => e.name),
    ...events.filter((e) => !props.events.some((x) => x.name === e)),
  ];

  const save = () => {
    const chosen = all ? [ALL] : events;
    if (chosen.length === 0) return submit.fail({ events: [t('hooks.pickEvent')] });
    return submit.run(async () => {
      if (hook) {
        const body: Record<string, unknown> = {};
        if (url.trim() !== hook.url) body.url = url.trim();
        if ([...chosen].sort().join() !== [...hook.events].sort().join()) body.events = chosen;
        if (enabled !== hook.enabled) body.enabled = enabled;
        if (rotate) body.rotateSecret = true;
        props.onSaved(
          Object.keys(body).length > 0 ? await patch<Webhook>(`/api/webhooks/${hook.id}`, body) : hook,
        );
      } else {
        const body: Record<string, unknown> = { url: url.trim(), events: chosen };
        if (secret !== '') body.secret = secret;
        props.onSaved(await post<Webhook>('/api/webhooks', body));
      }
    });
  };

  return (
    <FormDialog
      title={hook ? t('hooks.edit') : t('hooks.new')}
      onClose={props.onClose}
      submit={submit}
      onSubmit={save}
      submitLabel={hook ? t('common.save') : t('common.create')}
    >
      <TextField
        label={t('hooks.url')}
        name="url"
        type="url"
        inputMode="url"
        placeholder="https://"
        value={url}
        onChange={setUrl}
        autoFocus
        autoComplete="off"
        errors={byField.url}
      />
      <CheckList
        legend={t('hooks.events')}
        name="events"
        options={names.map((name) => ({
          value: name,
          label: <code>{name}</code>,
          // The catalogue's English summary when the console has no wording of its own (a new event).
          hint:
            textOr(t, `hooks.event.${name}`, props.events.find((e) => e.name === name)?.summary ?? '') ||
            undefined,
        }))}
        selected={all ? names : events}
        onChange={setEvents}
        disabled={all}
        errors={byField.events}
        extra={
          <label className="adm-check adm-check-all">
            <input
              type="checkbox"
              name="allEvents"
              checked={all}
              onChange={(e) => setAll(e.target.checked)}
            />
            <span>
              {t('hooks.allEvents')} <small className="adm-hint">{t('hooks.allEventsHint')}</small>
            </span>
          </label>
        }
      />
      {hook ? (
        <>
          <label className="adm-check">
            <input
              type="checkbox"
              name="enabled"
              checked={enabled}
              onChange={(e) => setEnabled(e.target.checked)}
            />
            <span>{t('hooks.enabled')}</span>
          </label>
          <label className="adm-check">
            <input
              type="checkbox"
              name="rotateSecret"
              checked={rotate}
              onChange={(e) => setRotate(e.target.checked)}
            />
            <span>
              {t('hooks.rotate')} <small className="adm-hint">{t('hooks.rotateHint')}</small>
            </span>
          </label>
          {byField.rotateSecret && <FormErrors messages={byField.rotateSecret} />}
        </>
      ) : (
        <TextField
          label={t('hooks.secret')}
          name="secret"
          value={secret}
          onChange={setSecret}
          autoComplete="off"
          spellCheck={false}
          hint={t('hooks.secretHint')}
          errors={byField.secret}
        />
      )}
    </FormDialog>
  );
}
