import { useId, useState } from 'react';
import { del, fileToBase64, get, patch, post, put, qs } from '../api';
import { useI18n } from '../i18n';
import { ATTACH_ACCEPT, mediaType, refusedAs } from '../inbox/attachments';
import { useDirectory, useMe } from '../session';
import type { CannedPage, CannedResponse, CannedScope } from '../models';
import { FieldErrors, SelectField, TextField } from './fields';
import { ConfirmDialog, FormDialog } from './form-dialog';
import { AdminListPage, Badge, Pager, type Column } from './list-page';
import { onForm, useLoad, useSubmit, type Loaded } from './load';

// Canned responses: the admin page (the account's and the teams' responses, for admins and
// supervisors) and each user's own page (personal ones). One screen, two modes, on the shared list
// page and form dialog.

const PAGE_SIZE = 50;
const VARIABLES = ['{{contact.name}}', '{{contact.first_name}}', '{{agent.name}}', '{{agent.first_name}}'];

type Mode = 'admin' | 'personal';
type DialogState =
  | { kind: 'create' }
  | { kind: 'edit'; item: CannedResponse }
  | { kind: 'delete'; item: CannedResponse }
  | null;

export function CannedResponsesPage(props: { mode: Mode }) {
  const { t } = useI18n();
  const { teams } = useDirectory();
  const { mode } = props;
  const [scope, setScope] = useState<CannedScope>(mode === 'admin' ? 'account' : 'personal');
  const [teamId, setTeamId] = useState('');
  const [q, setQ] = useState('');
  const [page, setPage] = useState(1);
  const [dialog, setDialog] = useState<DialogState>(null);
  const path = `/api/canned-responses${qs({ scope, teamId: scope === 'team' ? teamId : '', q: q.trim(), page, limit: PAGE_SIZE })}`;
  const list = useLoad(() => get<CannedPage>(path), path);
  // The list page shows the page's rows; saves reload the page.
  const items: Loaded<CannedResponse[]> = {
    ...list,
    data: list.data?.cannedResponses ?? null,
    setData: () => undefined,
  };
  const teamName = (id: string | null) => teams.find((x) => x.id === id)?.name ?? id ?? '';

  const columns: Column<CannedResponse>[] = [
    {
      key: 'shortcut',
      label: t('canned.shortcut'),
      render: (c) => <code>/{c.shortcut}</code>,
    },
    {
      key: 'content',
      label: t('canned.content'),
      render: (c) => (
        <span>
          <span className="canned-text">{c.content}</span>
          {c.attachment && (
            <small className="muted adm-block">📎 {c.attachment.filename ?? c.attachment.mimetype}</small>
          )}
        </span>
      ),
    },
    ...(mode === 'admin'
      ? [
          {
            key: 'scope',
            label: t('canned.scope'),
            render: (c: CannedResponse) => (
              <Badge tone={c.scope === 'account' ? 'info' : 'neutral'}>
                {c.scope === 'team' ? teamName(c.teamId) : t('canned.scope.account')}
              </Badge>
            ),
          },
        ]
      : []),
    { key: 'uses', label: t('canned.uses'), render: (c) => String(c.usageCount) },
    {
      key: 'actions',
      label: t('common.actions'),
      className: 'adm-cell-actions',
      render: (c) =>
        c.canManage && (
          <div className="adm-row-actions">
            <button
              type="button"
              className="btn small"
              onClick={() => setDialog({ kind: 'edit', item: c })}
              aria-label={t('canned.edit', { shortcut: c.shortcut })}
            >
              {t('common.edit')}
            </button>
            <button
              type="button"
              className="btn small"
              onClick={() => setDialog({ kind: 'delete', item: c })}
              aria-label={t('canned.delete', { shortcut: c.shortcut })}
            >
              {t('common.delete')}
            </button>
          </div>
        ),
    },
  ];

  const saved = () => void list.reload();
  return (
    <AdminListPage
      title={t(mode === 'admin' ? 'canned.title' : 'canned.mine')}
      newLabel={t('canned.new')}
      onNew={() => setDialog({ kind: 'create' })}
      list={items}
      columns={columns}
      rowKey={(c) => c.id}
      empty={t(q.trim() ? 'admin.noResults' : 'canned.empty')}
      testId="canned-table"
      filters={
        <form className="adm-filters" role="search" onSubmit={onForm(() => undefined)}>
          <TextField
            label={t('admin.filterText')}
            type="search"
            placeholder={t('canned.searchHint')}
            value={q}
            onChange={(v) => {
              setQ(v);
              setPage(1);
            }}
          />
          {mode === 'admin' && (
            <SelectField
              label={t('canned.scope')}
              value={scope === 'team' ? `team:${teamId}` : scope}
              onChange={(v) => {
                const [s, id = ''] = v.split(':');
                setScope(s as CannedScope);
                setTeamId(id);
                setPage(1);
              }}
              options={[
                { value: 'account', label: t('canned.scope.account') },
                { value: 'team:', label: t('canned.allTeams') },
                ...teams.map((x) => ({ value: `team:${x.id}`, label: x.name })),
              ]}
            />
          )}
        </form>
      }
      count={
        list.data && list.data.total > PAGE_SIZE ? (
          <Pager page={page} limit={PAGE_SIZE} total={list.data.total} onPage={setPage} />
        ) : undefined
      }
    >
      {(dialog?.kind === 'create' || dialog?.kind === 'edit') && (
        <CannedDialog
          mode={mode}
          item={dialog.kind === 'edit' ? dialog.item : undefined}
          defaultScope={scope}
          defaultTeam={teamId}
          onClose={() => setDialog(null)}
          onSaved={saved}
        />
      )}
      {dialog?.kind === 'delete' && (
        <ConfirmDialog
          title={t('canned.delete', { shortcut: dialog.item.shortcut })}
          message={t('canned.deleteConfirm')}
          confirmLabel={t('common.delete')}
          danger
          onConfirm={async () => {
            await del(`/api/canned-responses/${dialog.item.id}`);
            saved();
          }}
          onClose={() => setDialog(null)}
        />
      )}
    </AdminListPage>
  );
}

/** Create or change a response: scope and team (new ones only), shortcut, text, and its file. */
function CannedDialog(props: {
  mode: Mode;
  item?: CannedResponse;
  defaultScope: CannedScope;
  defaultTeam: string;
  onClose: () => void;
  onSaved: () => void;
}) {
  const { t } = useI18n();
  const { me, can } = useMe();
  const { teams } = useDirectory();
  const { item, mode } = props;
  const admin = can('canned_responses:manage');
  // Supervisors manage their own teams' responses; admins every team's.
  const teamOptions = teams.filter((x) => admin || x.members.includes(me.user.id));
  const scopes: CannedScope[] =
    mode === 'personal' ? ['personal'] : [...(admin ? (['account'] as const) : []), 'team'];
  const [scope, setScope] = useState<CannedScope>(
    scopes.includes(props.defaultScope) ? props.defaultScope : scopes[0]!,
  );
  const [teamId, setTeamId] = useState(props.defaultTeam || teamOptions[0]?.id || '');
  const [shortcut, setShortcut] = useState(item?.shortcut ?? '');
  const [content, setContent] = useState(item?.content ?? '');
  const [file, setFile] = useState<File | null>(null);
  const [dropFile, setDropFile] = useState(false);
  const [fileError, setFileError] = useState<string[]>([]);
  const submit = useSubmit(['shortcut', 'content', 'teamId', 'scope', 'mimetype', 'base64']);
  const { byField } = submit.errors;
  const contentId = useId();

  const save = () =>
    submit.run(async () => {
      let id = item?.id;
      if (item) {
        const body: Record<string, string> = {};
        if (shortcut !== item.shortcut) body.shortcut = shortcut;
        if (content !== item.content) body.content = content;
        if (Object.keys(body).length > 0) await patch(`/api/canned-responses/${item.id}`, body);
      } else {
        const created = await post<CannedResponse>('/api/canned-responses', {
          scope,
          ...(scope === 'team' ? { teamId } : {}),
          shortcut,
          content,
        });
        id = created.id;
      }
      if (id && file) {
        await put(`/api/canned-responses/${id}/attachment`, {
          mimetype: mediaType(file) ?? file.type,
          filename: file.name,
          base64: await fileToBase64(file),
        });
      } else if (id && dropFile && item?.attachment) {
        await del(`/api/canned-responses/${id}/attachment`);
      }
      props.onSaved();
      props.onClose();
    });

  return (
    <FormDialog
      title={item ? t('canned.edit', { shortcut: item.shortcut }) : t('canned.new')}
      onClose={props.onClose}
      submit={submit}
      onSubmit={save}
      submitLabel={item ? t('common.save') : t('common.create')}
    >
      {!item && scopes.length > 1 && (
        <SelectField
          label={t('canned.scope')}
          name="scope"
          value={scope}
          onChange={(v) => setScope(v as CannedScope)}
          options={scopes.map((s) => ({ value: s, label: t(`canned.scope.${s}`) }))}
          errors={byField.scope}
        />
      )}
      {!item && scope === 'team' && (
        <SelectField
          label={t('chat.team')}
          name="teamId"
          value={teamId}
          onChange={setTeamId}
          options={teamOptions.map((x) => ({ value: x.id, label: x.name }))}
          errors={byField.teamId}
        />
      )}
      <TextField
        label={t('canned.shortcut')}
        name="shortcut"
        value={shortcut}
        onChange={setShortcut}
        autoFocus
        maxLength={32}
        hint={t('canned.shortcutHint')}
        errors={byField.shortcut}
      />
      <div className="field adm-field">
        <label htmlFor={contentId}>{t('canned.content')}</label>
        <textarea
          id={contentId}
          name="content"
          rows={5}
          maxLength={4096}
          value={content}
          onChange={(e) => setContent(e.target.value)}
          aria-describedby={`${contentId}-hint${byField.content ? ` ${contentId}-err` : ''}`}
          aria-invalid={byField.content ? true : undefined}
        />
        <small id={`${contentId}-hint`} className="adm-hint">
          {t('canned.variablesHint', { list: VARIABLES.join(' ') })}
        </small>
        <FieldErrors id={`${contentId}-err`} messages={byField.content ?? []} />
      </div>
      <div className="field adm-field">
        <label htmlFor={`${contentId}-file`}>{`${t('canned.attachment')} (${t('admin.optional')})`}</label>
        {item?.attachment && !file && !dropFile && (
          <p className="adm-hint">
            📎 {item.attachment.filename ?? item.attachment.mimetype}{' '}
            <button type="button" className="btn small" onClick={() => setDropFile(true)}>
              {t('chat.removeAttachment')}
            </button>
          </p>
        )}
        <input
          id={`${contentId}-file`}
          type="file"
          accept={ATTACH_ACCEPT}
          onChange={(e) => {
            const picked = e.target.files?.[0] ?? null;
            const refused = picked && refusedAs(picked);
            setFileError(refused ? [t('chat.fileUnsupported', { ext: refused })] : []);
            setFile(refused ? null : picked);
          }}
        />
        <FieldErrors messages={[...fileError, ...(byField.mimetype ?? []), ...(byField.base64 ?? [])]} />
      </div>
    </FormDialog>
  );
}
