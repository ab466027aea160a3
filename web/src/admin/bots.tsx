import { useEffect, useState } from 'react';
import { del, patch, post } from '../api';
import { Dialog } from '../components';
import { useI18n } from '../i18n';
import type { Bot, CreatedBot, UpdatedBot } from '../models';
import { CopyField, TextField } from './fields';
import { ConfirmDialog, FormDialog } from './form-dialog';
import { AdminListPage, type Column } from './list-page';
import { HookRowActions } from './hook-row-actions';
import { StatusBadge } from './webhooks';
import { useList, useRowAction, useSubmit } from './load';
import { useGateway } from '../session';

// The account's bots (createBot, listBots, updateBot, deleteBot): each is an API key and a signed
// endpoint; the key and the secret are shown once, when the bot is made (docs/bots.md).

export function BotsPage() {
  const { t } = useI18n();
  const bots = useList<Bot>('/api/bots');
  const [dialog, setDialog] = useState<{ kind: 'create' } | { kind: 'edit'; bot: Bot } | null>(null);
  const [shown, setShown] = useState<{ apiKey?: string; secret: string } | null>(null);
  const [deleting, setDeleting] = useState<Bot | null>(null);
  const row = useRowAction();
  const saved = (bot: Bot) => bots.upsert(bot);
  // Another admin's changes, live.
  const { gateway } = useGateway();
  const { upsert, remove, reload } = bots;
  useEffect(() => {
    if (!gateway) return;
    const offs = [
      gateway.on('bot.update', (e) => (e.data.deleted ? remove(e.data.bot.id) : upsert(e.data.bot))),
      gateway.onResync(() => void reload()),
    ];
    return () => offs.forEach((off) => off());
  }, [gateway, upsert, remove, reload]);
  const toggle = (bot: Bot) =>
    row.run(bot.id, async () =>
      saved(await patch<UpdatedBot>(`/api/bots/${bot.id}`, { enabled: !bot.enabled })),
    );

  const columns: Column<Bot>[] = [
    {
      key: 'name',
      label: t('common.name'),
      render: (b) => (
        <span>
          <strong>{b.name}</strong>
          <small className="muted adm-block adm-break">{b.url}</small>
        </span>
      ),
    },
    {
      key: 'timeout',
      label: t('bots.timeout'),
      render: (b) => t('bots.seconds', { n: b.replyTimeoutSeconds }),
    },
    { key: 'status', label: t('common.status'), render: (b) => <StatusBadge hook={b} /> },
    {
      key: 'actions',
      label: t('common.actions'),
      className: 'adm-cell-actions',
      render: (b) => (
        <HookRowActions
          webhookId={b.webhookId}
          name={b.name}
          enabled={b.enabled}
          busy={row.busy === b.id}
          errors={row.errorsOf(b.id)}
          onEdit={() => setDialog({ kind: 'edit', bot: b })}
          onToggle={() => void toggle(b)}
          onDelete={() => setDeleting(b)}
        />
      ),
    },
  ];

  return (
    <AdminListPage
      title={t('bots.title')}
      newLabel={t('bots.new')}
      onNew={() => setDialog({ kind: 'create' })}
      list={bots}
      columns={columns}
      rowKey={(b) => b.id}
      rowClass={(b) => (b.enabled ? undefined : 'adm-dim')}
      empty={t('bots.empty')}
      testId="bots-table"
    >
      {dialog && (
        <BotDialog
          bot={dialog.kind === 'edit' ? dialog.bot : undefined}
          onClose={() => setDialog(null)}
          onSaved={(b) => {
            setDialog(null);
            saved(b);
            if ('apiKey' in b) setShown({ apiKey: b.apiKey, secret: b.secret });
            else if (b.secret) setShown({ secret: b.secret });
          }}
        />
      )}
      {shown && <ShownOnce apiKey={shown.apiKey} secret={shown.secret} onClose={() => setShown(null)} />}
      {deleting && (
        <ConfirmDialog
          title={t('common.delete')}
          message={t('bots.deleteConfirm', { name: deleting.name })}
          confirmLabel={t('common.delete')}
          danger
          onConfirm={async () => {
            await del(`/api/bots/${deleting.id}`);
            bots.remove(deleting.id);
          }}
          onClose={() => setDeleting(null)}
        />
      )}
    </AdminListPage>
  );
}

/** The bot's key and signing secret, right after they were made: copy them now. */
function ShownOnce(props: { apiKey?: string; secret: string; onClose: () => void }) {
  const { t } = useI18n();
  return (
    <Dialog title={props.apiKey ? t('bots.createdTitle') : t('hooks.secretRotated')} onClose={props.onClose}>
      <div className="adm-dialog-body" data-testid="bot-secrets">
        <p className="warning adm-once" role="note">
          {t('common.shownOnce')}
        </p>
        <p className="adm-note">{t('bots.createdNote')}</p>
        {props.apiKey && <CopyField label={t('bots.apiKey')} value={props.apiKey} testId="bot-api-key" />}
        <CopyField label={t('bots.secret')} value={props.secret} testId="bot-secret" />
        <div className="adm-actions">
          <button type="button" className="btn primary" onClick={props.onClose}>
            {t('admin.shownOnceDone')}
          </button>
        </div>
      </div>
    </Dialog>
  );
}

function BotDialog(props: { bot?: Bot; onClose: () => void; onSaved: (b: CreatedBot | UpdatedBot) => void }) {
  const { t } = useI18n();
  const bot = props.bot;
  const [name, setName] = useState(bot?.name ?? '');
  const [url, setUrl] = useState(bot?.url ?? '');
  const [timeout, setSeconds] = useState(String(bot?.replyTimeoutSeconds ?? 60));
  const [rotate, setRotate] = useState(false);
  const submit = useSubmit(['name', 'url', 'replyTimeoutSeconds', 'rotateSecret']);
  const { byField } = submit.errors;

  const save = () =>
    submit.run(async () => {
      const seconds = Number(timeout);
      if (bot) {
        const body: Record<string, unknown> = {};
        if (name.trim() !== bot.name) body.name = name.trim();
        if (url.trim() !== bot.url) body.url = url.trim();
        if (seconds !== bot.replyTimeoutSeconds) body.replyTimeoutSeconds = seconds;
        if (rotate) body.rotateSecret = true;
        props.onSaved(
          Object.keys(body).length > 0 ? await patch<UpdatedBot>(`/api/bots/${bot.id}`, body) : bot,
        );
      } else {
        props.onSaved(
          await post<CreatedBot>('/api/bots', {
            name: name.trim(),
            url: url.trim(),
            replyTimeoutSeconds: seconds,
          }),
        );
      }
    });

  return (
    <FormDialog
      title={bot ? t('bots.edit') : t('bots.new')}
      onClose={props.onClose}
      submit={submit}
      onSubmit={save}
      submitLabel={bot ? t('common.save') : t('common.create')}
    >
      <TextField
        label={t('common.name')}
        name="name"
        value={name}
        onChange={setName}
        autoFocus
        autoComplete="off"
        errors={byField.name}
      />
      <TextField
        label={t('bots.url')}
        name="url"
        type="url"
        inputMode="url"
        placeholder="https://"
        value={url}
        onChange={setUrl}
        autoComplete="off"
        hint={t('bots.urlHint')}
        errors={byField.url}
      />
      <TextField
        label={t('bots.timeout')}
        name="replyTimeoutSeconds"
        type="number"
        min={5}
        max={3600}
        value={timeout}
        onChange={setSeconds}
        hint={t('bots.timeoutHint')}
        errors={byField.replyTimeoutSeconds}
      />
      {bot && (
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
      )}
    </FormDialog>
  );
}
