import { useState } from 'react';
import { del, patch, post } from '../api';
import { useI18n } from '../i18n';
import type { AttributeDefinition } from '../models';
import { SelectField, TextField } from './fields';
import { ConfirmDialog, FormDialog } from './form-dialog';
import { AdminListPage, Badge, type Column } from './list-page';
import { useList, useSubmit } from './load';

type DialogState =
  | { kind: 'create' }
  | { kind: 'edit'; def: AttributeDefinition }
  | { kind: 'delete'; def: AttributeDefinition }
  | null;

const TYPES = ['text', 'number', 'date', 'list'] as const;

/** Custom attributes of contacts: what the contact panel shows and agents fill in. */
export function AttributesPage() {
  const { t, tr } = useI18n();
  const list = useList<AttributeDefinition>('/api/customer-attributes');
  const [dialog, setDialog] = useState<DialogState>(null);
  const columns: Column<AttributeDefinition>[] = [
    {
      key: 'label',
      label: t('attributes.label'),
      render: (d) => (
        <span>
          <strong>{d.label}</strong>
          {d.description && <small className="muted adm-block">{d.description}</small>}
        </span>
      ),
    },
    { key: 'key', label: t('attributes.key'), render: (d) => <code>{d.key}</code> },
    {
      key: 'type',
      label: t('attributes.type'),
      render: (d) => (
        <span>
          <Badge tone="info">{tr(`attributes.type.${d.type}`)}</Badge>
          {d.type === 'list' && <small className="muted adm-block">{d.options.join(', ')}</small>}
        </span>
      ),
    },
    {
      key: 'actions',
      label: t('common.actions'),
      className: 'adm-cell-actions',
      render: (d) => (
        <div className="adm-row-actions">
          <button
            type="button"
            className="btn small"
            onClick={() => setDialog({ kind: 'edit', def: d })}
            aria-label={t('attributes.edit', { label: d.label })}
          >
            {t('common.edit')}
          </button>
          <button
            type="button"
            className="btn small danger"
            onClick={() => setDialog({ kind: 'delete', def: d })}
            aria-label={t('attributes.delete', { label: d.label })}
          >
            {t('common.delete')}
          </button>
        </div>
      ),
    },
  ];
  return (
    <AdminListPage
      title={t('attributes.title')}
      newLabel={t('attributes.new')}
      onNew={() => setDialog({ kind: 'create' })}
      list={list}
      columns={columns}
      rowKey={(d) => d.id}
      empty={t('attributes.empty')}
      testId="attributes-table"
    >
      {(dialog?.kind === 'create' || dialog?.kind === 'edit') && (
        <AttributeDialog
          def={dialog.kind === 'edit' ? dialog.def : undefined}
          onClose={() => setDialog(null)}
          onSaved={(d) => list.upsert(d)}
        />
      )}
      {dialog?.kind === 'delete' && (
        <ConfirmDialog
          title={t('attributes.delete', { label: dialog.def.label })}
          message={t('attributes.deleteConfirm', { label: dialog.def.label })}
          confirmLabel={t('common.delete')}
          danger
          onClose={() => setDialog(null)}
          onConfirm={async () => {
            await del(`/api/customer-attributes/${dialog.def.id}`);
            list.remove(dialog.def.id);
          }}
        />
      )}
    </AdminListPage>
  );
}

/** Create (key and type fixed from then on) or edit label, description and a list's options. */
function AttributeDialog(props: {
  def?: AttributeDefinition;
  onClose: () => void;
  onSaved: (d: AttributeDefinition) => void;
}) {
  const { t, tr } = useI18n();
  const { def } = props;
  const [key, setKey] = useState(def?.key ?? '');
  const [label, setLabel] = useState(def?.label ?? '');
  const [type, setType] = useState<string>(def?.type ?? 'text');
  const [options, setOptions] = useState((def?.options ?? []).join('\n'));
  const [description, setDescription] = useState(def?.description ?? '');
  const submit = useSubmit(['key', 'label', 'type', 'options', 'description']);
  const { byField } = submit.errors;
  const save = () =>
    submit.run(async () => {
      const opts = options
        .split('\n')
        .map((o) => o.trim())
        .filter((o) => o !== '');
      const body = {
        label: label.trim(),
        description: description.trim() === '' ? null : description.trim(),
        ...(type === 'list' ? { options: opts } : {}),
      };
      props.onSaved(
        def
          ? await patch<AttributeDefinition>(`/api/customer-attributes/${def.id}`, body)
          : await post<AttributeDefinition>('/api/customer-attributes', { key: key.trim(), type, ...body }),
      );
      props.onClose();
    });
  return (
    <FormDialog
      title={def ? t('attributes.edit', { label: def.label }) : t('attributes.new')}
      onClose={props.onClose}
      submit={submit}
      onSubmit={save}
      submitLabel={def ? t('common.save') : t('common.create')}
    >
      <TextField
        label={t('attributes.label')}
        name="label"
        value={label}
        onChange={setLabel}
        autoFocus
        errors={byField.label}
      />
      {!def && (
        <>
          <TextField
            label={t('attributes.key')}
            name="key"
            value={key}
            onChange={setKey}
            hint={t('attributes.keyHint')}
            errors={byField.key}
          />
          <SelectField
            label={t('attributes.type')}
            name="type"
            value={type}
            onChange={setType}
            options={TYPES.map((x) => ({ value: x, label: tr(`attributes.type.${x}`) }))}
            errors={byField.type}
          />
        </>
      )}
      {type === 'list' && (
        <div className="field adm-field">
          <label htmlFor="attribute-options">{t('attributes.options')}</label>
          <textarea
            id="attribute-options"
            name="options"
            rows={4}
            value={options}
            onChange={(e) => setOptions(e.target.value)}
          />
        </div>
      )}
      <TextField
        label={`${t('teams.description')} (${t('admin.optional')})`}
        name="description"
        value={description}
        onChange={setDescription}
        errors={byField.description}
      />
    </FormDialog>
  );
}
