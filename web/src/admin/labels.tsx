import { useState } from 'react';
import { del, patch, post } from '../api';
import { useI18n } from '../i18n';
import { LabelChip } from '../inbox/labels';
import type { Label } from '../models';
import { useLabels } from '../session';
import { TextField } from './fields';
import { ConfirmDialog, FormDialog } from './form-dialog';
import { AdminListPage, type Column } from './list-page';
import { useList, useSubmit } from './load';

type DialogState =
  { kind: 'create' } | { kind: 'edit'; label: Label } | { kind: 'delete'; label: Label } | null;

/** Colours offered first; any `#rrggbb` may be typed. */
const PALETTE = ['#e11d48', '#f97316', '#eab308', '#16a34a', '#0891b2', '#2563eb', '#7c3aed', '#64748b'];

/** Labels: the account's words for organising conversations and customers (admins, `labels:manage`). */
export function LabelsPage() {
  const { t } = useI18n();
  const { reloadLabels } = useLabels();
  const labels = useList<Label>('/api/labels');
  const [dialog, setDialog] = useState<DialogState>(null);

  const saved = (label: Label) => {
    labels.upsert(label);
    void reloadLabels();
  };

  const columns: Column<Label>[] = [
    {
      key: 'name',
      label: t('common.name'),
      render: (l) => <LabelChip label={l} />,
    },
    {
      key: 'description',
      label: t('labels.description'),
      render: (l) => (l.description ? l.description : <span className="muted">—</span>),
    },
    {
      key: 'actions',
      label: t('common.actions'),
      className: 'adm-cell-actions',
      render: (l) => (
        <div className="adm-row-actions">
          <button
            type="button"
            className="btn small"
            onClick={() => setDialog({ kind: 'edit', label: l })}
            aria-label={t('labels.edit', { name: l.name })}
          >
            {t('common.edit')}
          </button>
          <button
            type="button"
            className="btn small danger"
            onClick={() => setDialog({ kind: 'delete', label: l })}
            aria-label={t('labels.delete', { name: l.name })}
          >
            {t('common.delete')}
          </button>
        </div>
      ),
    },
  ];

  return (
    <AdminListPage
      title={t('labels.title')}
      newLabel={t('labels.new')}
      onNew={() => setDialog({ kind: 'create' })}
      list={labels}
      columns={columns}
      rowKey={(l) => l.id}
      empty={t('labels.empty')}
      testId="labels-table"
    >
      {dialog?.kind === 'create' && <LabelDialog onClose={() => setDialog(null)} onSaved={saved} />}
      {dialog?.kind === 'edit' && (
        <LabelDialog label={dialog.label} onClose={() => setDialog(null)} onSaved={saved} />
      )}
      {dialog?.kind === 'delete' && (
        <ConfirmDialog
          title={t('labels.delete', { name: dialog.label.name })}
          message={t('labels.deleteConfirm', { name: dialog.label.name })}
          confirmLabel={t('common.delete')}
          danger
          onConfirm={async () => {
            await del(`/api/labels/${dialog.label.id}`);
            labels.remove(dialog.label.id);
            void reloadLabels();
          }}
          onClose={() => setDialog(null)}
        />
      )}
    </AdminListPage>
  );
}

function LabelDialog(props: { label?: Label; onClose: () => void; onSaved: (label: Label) => void }) {
  const { t } = useI18n();
  const label = props.label;
  const [name, setName] = useState(label?.name ?? '');
  const [color, setColor] = useState(label?.color ?? PALETTE[5]!);
  const [description, setDescription] = useState(label?.description ?? '');
  const submit = useSubmit(['name', 'color', 'description']);
  const { byField } = submit.errors;

  const save = () =>
    submit.run(async () => {
      const desc = description.trim() === '' ? null : description.trim();
      if (label) {
        const body: Record<string, string | null> = {};
        if (name.trim() !== label.name) body.name = name.trim();
        if (color !== label.color) body.color = color;
        if (desc !== label.description) body.description = desc;
        if (Object.keys(body).length > 0) props.onSaved(await patch<Label>(`/api/labels/${label.id}`, body));
      } else {
        props.onSaved(await post<Label>('/api/labels', { name: name.trim(), color, description: desc }));
      }
      props.onClose();
    });

  return (
    <FormDialog
      title={label ? t('labels.edit', { name: label.name }) : t('labels.new')}
      onClose={props.onClose}
      submit={submit}
      onSubmit={save}
      submitLabel={label ? t('common.save') : t('common.create')}
    >
      <TextField
        label={t('common.name')}
        name="name"
        value={name}
        onChange={setName}
        maxLength={50}
        autoFocus
        errors={byField.name}
      />
      <fieldset className="field adm-field label-colors">
        <legend>{t('labels.color')}</legend>
        <div className="label-swatches">
          {PALETTE.map((c) => (
            <label key={c} className="label-swatch" style={{ ['--label-color' as string]: c }}>
              <input
                type="radio"
                name="label-color"
                value={c}
                checked={color === c}
                onChange={() => setColor(c)}
                aria-label={c}
              />
            </label>
          ))}
        </div>
        <TextField
          label={t('labels.colorHex')}
          name="color"
          value={color}
          onChange={setColor}
          maxLength={7}
          errors={byField.color}
        />
      </fieldset>
      <TextField
        label={`${t('labels.description')} (${t('admin.optional')})`}
        name="description"
        value={description}
        onChange={setDescription}
        maxLength={500}
        errors={byField.description}
      />
    </FormDialog>
  );
}
