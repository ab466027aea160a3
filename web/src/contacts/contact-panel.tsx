import { useState } from 'react';
import { del, patch, post, put } from '../api';
import { ConfirmDialog } from '../admin/form-dialog';
import { FormErrors } from '../admin/fields';
import { onForm, useSubmit } from '../admin/load';
import { useI18n } from '../i18n';
import type { AttributeDefinition, Customer, CustomerNote } from '../models';
import { Link } from '../router';
import { useDirectory, useMe } from '../session';
import { AttributeInput } from './attribute-input';
import { useCustomer, type CustomerState } from './use-customer';

/**
 * What the team knows of the customer behind a conversation: name, addresses per channel, created and
 * last seen, attributes, labels, notes and conversations. Agents edit the name and attributes and
 * write notes; everything follows the gateway's customer events. `onClose` shows a close button (the
 * panel beside a conversation); `full` is the contact's own page.
 */
export function ContactPanel(props: { customerId: string; onClose?: () => void; full?: boolean }) {
  const { t } = useI18n();
  const state = useCustomer(props.customerId);
  const { customer } = state;
  return (
    <aside
      className={props.full ? 'contact-panel full' : 'contact-panel'}
      aria-label={t('contact.panel')}
      id="contact-panel"
      data-testid="contact-panel"
      data-customer-id={state.id}
    >
      <header className="contact-head">
        <h2>{customer?.name ?? t('contact.panel')}</h2>
        {!props.full && customer && (
          <Link href={`/contacts/${customer.id}`} className="btn ghost small">
            {t('contact.openPage')}
          </Link>
        )}
        {props.onClose && (
          <button
            type="button"
            className="btn ghost icon"
            aria-label={t('contact.close')}
            onClick={props.onClose}
          >
            ×
          </button>
        )}
      </header>
      {state.gone ? (
        <p className="muted" role="status">
          {t('contact.merged')}
        </p>
      ) : state.error && !customer ? (
        <FormErrors messages={state.error} />
      ) : !customer ? (
        <p className="muted" role="status">
          {t('common.loading')}
        </p>
      ) : (
        <ContactBody state={state} customer={customer} />
      )}
    </aside>
  );
}

function ContactBody(props: { state: CustomerState; customer: Customer }) {
  const { t, time } = useI18n();
  const { customer, state } = props;
  const [editing, setEditing] = useState(false);
  return (
    <div className="contact-body">
      <section aria-labelledby="contact-ids">
        <h3 id="contact-ids">{t('contact.identities')}</h3>
        <ul className="contact-ids" data-testid="contact-identities">
          {customer.identities.map((i) => (
            <li key={i.contactId}>
              <span className="muted">{i.channelName}</span> <span>{i.value}</span>
            </li>
          ))}
        </ul>
        <dl className="contact-facts">
          <dt>{t('contact.created')}</dt>
          <dd>{time(customer.createdAt)}</dd>
          <dt>{t('contact.lastSeen')}</dt>
          <dd>{customer.lastSeenAt ? time(customer.lastSeenAt) : t('contact.never')}</dd>
        </dl>
      </section>
      <section aria-labelledby="contact-attrs">
        <div className="contact-section-head">
          <h3 id="contact-attrs">{t('contact.attributes')}</h3>
          {!editing && (
            <button type="button" className="btn small" onClick={() => setEditing(true)}>
              {t('contact.edit')}
            </button>
          )}
        </div>
        {editing ? (
          <EditContact
            customer={customer}
            defs={state.defs}
            onDone={(c) => {
              if (c) state.setCustomer(c);
              setEditing(false);
            }}
          />
        ) : state.defs.length === 0 ? (
          <p className="muted">{t('contact.noAttributes')}</p>
        ) : (
          <dl className="contact-facts" data-testid="contact-attributes">
            {state.defs.map((d) => (
              <div key={d.id} className="contact-fact">
                <dt>{d.label}</dt>
                <dd data-key={d.key}>{showValue(customer.attributes[d.key], d, time)}</dd>
              </div>
            ))}
          </dl>
        )}
      </section>
      <Labels state={state} customer={customer} />
      <Notes state={state} customerId={customer.id} />
      <Conversations state={state} />
    </div>
  );
}

function showValue(v: string | number | undefined, d: AttributeDefinition, time: (iso: string) => string) {
  if (v === undefined) return '—';
  if (d.type === 'date' && typeof v === 'string') return time(`${v}T12:00:00Z`).split(' ')[0];
  return String(v);
}

/** Name and attribute values; a value emptied is removed. */
function EditContact(props: {
  customer: Customer;
  defs: AttributeDefinition[];
  onDone: (c: Customer | null) => void;
}) {
  const { t } = useI18n();
  const { customer } = props;
  const [name, setName] = useState(customer.name);
  const [values, setValues] = useState<Record<string, string>>(() =>
    Object.fromEntries(props.defs.map((d) => [d.key, String(customer.attributes[d.key] ?? '')])),
  );
  const submit = useSubmit([]);
  const save = () =>
    submit.run(async () => {
      const attributes: Record<string, string | number | null> = {};
      for (const d of props.defs) {
        const before = String(customer.attributes[d.key] ?? '');
        const now = (values[d.key] ?? '').trim();
        if (now === before) continue;
        attributes[d.key] = now === '' ? null : d.type === 'number' ? Number(now) : now;
      }
      props.onDone(
        await patch<Customer>(`/api/customers/${customer.id}`, { name: name.trim() || null, attributes }),
      );
    });
  return (
    <form className="contact-edit" noValidate onSubmit={onForm(save)} data-testid="contact-edit">
      <FormErrors messages={[...submit.errors.rest, ...Object.values(submit.errors.byField).flat()]} />
      <label className="field">
        <span>{t('contact.name')}</span>
        <input value={name} onChange={(e) => setName(e.target.value)} maxLength={200} autoFocus />
      </label>
      {props.defs.map((d) => (
        <AttributeInput
          key={d.id}
          def={d}
          value={values[d.key] ?? ''}
          onChange={(v) => setValues((x) => ({ ...x, [d.key]: v }))}
        />
      ))}
      <div className="adm-actions">
        <button type="button" className="btn" onClick={() => props.onDone(null)}>
          {t('common.cancel')}
        </button>
        <button type="submit" className="btn primary" disabled={submit.pending}>
          {t('common.save')}
        </button>
      </div>
    </form>
  );
}

/** The customer's labels; added and removed through the labels API when the account has one. */
function Labels(props: { state: CustomerState; customer: Customer }) {
  const { t } = useI18n();
  const { customer, state } = props;
  const [error, setError] = useState<string[]>([]);
  const act = async (run: () => Promise<unknown>) => {
    setError([]);
    try {
      await run();
      await state.reload();
    } catch (err) {
      setError(err instanceof Error ? [err.message] : [t('common.error')]);
    }
  };
  const addable = (state.labels ?? []).filter((l) => !customer.labels.some((x) => x.id === l.id));
  return (
    <section aria-labelledby="contact-labels">
      <h3 id="contact-labels">{t('contact.labels')}</h3>
      {customer.labels.length === 0 ? (
        <p className="muted">{t('contact.noLabels')}</p>
      ) : (
        <ul className="label-chips" data-testid="contact-labels">
          {customer.labels.map((l) => (
            <li key={l.id} className="label-chip" style={{ borderColor: l.color }}>
              <span className="label-dot" style={{ background: l.color }} aria-hidden="true" />
              {l.name}
              {state.labels && (
                <button
                  type="button"
                  className="btn ghost icon small"
                  aria-label={t('contact.removeLabel', { name: l.name })}
                  onClick={() => void act(() => del(`/api/customers/${customer.id}/labels/${l.id}`))}
                >
                  ×
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {addable.length > 0 && (
        <select
          aria-label={t('contact.addLabel')}
          value=""
          onChange={(e) =>
            e.target.value &&
            void act(() => put(`/api/customers/${customer.id}/labels/${e.target.value}`, {}))
          }
        >
          <option value="">{t('contact.addLabel')}</option>
          {addable.map((l) => (
            <option key={l.id} value={l.id}>
              {l.name}
            </option>
          ))}
        </select>
      )}
      <FormErrors messages={error} />
    </section>
  );
}

function Notes(props: { state: CustomerState; customerId: string }) {
  const { t } = useI18n();
  const [body, setBody] = useState('');
  const submit = useSubmit([]);
  const add = () =>
    submit.run(async () => {
      props.state.upsertNote(await post<CustomerNote>(`/api/customers/${props.customerId}/notes`, { body }));
      setBody('');
    });
  return (
    <section aria-labelledby="contact-notes">
      <h3 id="contact-notes">{t('contact.notes')}</h3>
      <form className="contact-note-new" noValidate onSubmit={onForm(add)}>
        <label className="sr-only" htmlFor="contact-note-body">
          {t('contact.newNote')}
        </label>
        <textarea
          id="contact-note-body"
          value={body}
          rows={2}
          maxLength={5000}
          placeholder={t('contact.newNote')}
          onChange={(e) => setBody(e.target.value)}
        />
        <FormErrors messages={[...submit.errors.rest, ...Object.values(submit.errors.byField).flat()]} />
        <button type="submit" className="btn small" disabled={submit.pending || body.trim() === ''}>
          {t('contact.addNote')}
        </button>
      </form>
      {props.state.notes.length === 0 ? (
        <p className="muted">{t('contact.noNotes')}</p>
      ) : (
        <ul className="contact-notes" data-testid="contact-notes">
          {props.state.notes.map((n) => (
            <Note key={n.id} note={n} state={props.state} />
          ))}
        </ul>
      )}
    </section>
  );
}

function Note(props: { note: CustomerNote; state: CustomerState }) {
  const { t, time } = useI18n();
  const { me, can } = useMe();
  const { note, state } = props;
  const [editing, setEditing] = useState(false);
  const [body, setBody] = useState(note.body);
  const [confirm, setConfirm] = useState(false);
  const submit = useSubmit([]);
  const mine = note.author?.id === me.user.id;
  const path = `/api/customers/${note.customerId}/notes/${note.id}`;
  const save = () =>
    submit.run(async () => {
      state.upsertNote(await patch<CustomerNote>(path, { body }));
      setEditing(false);
    });
  return (
    <li className="contact-note" data-note-id={note.id}>
      <div className="contact-note-meta">
        <strong>{note.author?.name ?? t('contact.deletedUser')}</strong>
        <time dateTime={note.createdAt}>{time(note.createdAt)}</time>
        {note.editedAt && <em className="muted">{t('contact.edited', { time: time(note.editedAt) })}</em>}
      </div>
      {editing ? (
        <form noValidate onSubmit={onForm(save)}>
          <label className="sr-only" htmlFor={`note-${note.id}`}>
            {t('contact.editNote')}
          </label>
          <textarea
            id={`note-${note.id}`}
            value={body}
            rows={3}
            onChange={(e) => setBody(e.target.value)}
            autoFocus
          />
          <FormErrors messages={[...submit.errors.rest, ...Object.values(submit.errors.byField).flat()]} />
          <div className="adm-actions">
            <button type="button" className="btn small" onClick={() => setEditing(false)}>
              {t('common.cancel')}
            </button>
            <button type="submit" className="btn small primary" disabled={submit.pending}>
              {t('common.save')}
            </button>
          </div>
        </form>
      ) : (
        <p className="contact-note-body">{note.body}</p>
      )}
      {!editing && (mine || can('customers:manage')) && (
        <div className="contact-note-actions">
          {mine && (
            <button type="button" className="btn ghost small" onClick={() => setEditing(true)}>
              {t('contact.editNote')}
            </button>
          )}
          <button type="button" className="btn ghost small" onClick={() => setConfirm(true)}>
            {t('contact.deleteNote')}
          </button>
        </div>
      )}
      {confirm && (
        <ConfirmDialog
          title={t('contact.deleteNote')}
          message={t('contact.deleteNoteConfirm')}
          confirmLabel={t('contact.deleteNote')}
          danger
          onClose={() => setConfirm(false)}
          onConfirm={async () => {
            await del(path);
            state.removeNote(note.id);
          }}
        />
      )}
    </li>
  );
}

function Conversations(props: { state: CustomerState }) {
  const { t, time } = useI18n();
  const { channels } = useDirectory();
  const { chats } = props.state;
  return (
    <section aria-labelledby="contact-chats">
      <h3 id="contact-chats">{t('contact.conversations')}</h3>
      {chats === null ? (
        <p className="muted">{t('contact.conversationsUnavailable')}</p>
      ) : chats.length === 0 ? (
        <p className="muted">{t('contact.noConversations')}</p>
      ) : (
        <ul className="contact-chats">
          {chats.map((c) => (
            <li key={c.id}>
              <Link href={`/inbox/${c.id}`}>
                {channels.find((ch) => ch.id === c.channelId)?.name ?? c.channelId} · {time(c.createdAt)} ·{' '}
                {c.status === 'open' ? t('contact.open') : t('contact.closed')}
              </Link>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
