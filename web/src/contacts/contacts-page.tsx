import { useEffect, useState } from 'react';
import { ApiError, get, post, qs } from '../api';
import { FormErrors, SelectField } from '../admin/fields';
import { ConfirmDialog, FormDialog } from '../admin/form-dialog';
import { DataTable, LoadState, PageHeader, Pager, type Column } from '../admin/list-page';
import { useLoad, useSubmit } from '../admin/load';
import { Dialog } from '../components';
import { useI18n } from '../i18n';
import type { AttributeDefinition, Customer, CustomerPage, ImportReport, LabelItem } from '../models';
import { Link } from '../router';
import { useDirectory, useGateway, useMe } from '../session';
import { AttributeInput } from './attribute-input';
import { ContactPanel } from './contact-panel';
import { DataProtectionActions } from './data-protection';

const LIMIT = 20;

/** `/contacts` (the list) and `/contacts/<id>` (one contact, with the admin's merge). */
export function ContactsArea(props: { path: string }) {
  const id = /^\/contacts\/([0-9a-f]{24})\/?$/i.exec(props.path)?.[1];
  return (
    <section className="page adm-page contacts-page">
      {id ? <ContactPage id={id} /> : <ContactsList />}
    </section>
  );
}

function ContactsList() {
  const { t, time } = useI18n();
  const { can } = useMe();
  const { gateway } = useGateway();
  const [q, setQ] = useState('');
  const [search, setSearch] = useState('');
  const [label, setLabel] = useState('');
  const [attrKey, setAttrKey] = useState('');
  const [attrValue, setAttrValue] = useState('');
  const [page, setPage] = useState(1);
  const [importing, setImporting] = useState(false);
  const defs = useLoad(() => get<AttributeDefinition[]>('/api/customer-attributes'), 'defs');
  const labels = useLoad(() => get<LabelItem[]>('/api/labels').catch(() => [] as LabelItem[]), 'labels');
  const def = defs.data?.find((d) => d.key === attrKey);
  const filters: Record<string, string> = { q: search, label };
  if (def && attrValue.trim() !== '') filters[`attr.${def.key}`] = attrValue.trim();
  const query = qs(filters);
  const list = useLoad(
    () => get<CustomerPage>(`/api/customers${qs({ ...filters, page, limit: LIMIT })}`),
    `${query}|${page}`,
  );

  // Searching as one types, a moment after the last key.
  useEffect(() => {
    const timer = setTimeout(() => {
      setSearch(q.trim());
      setPage(1);
    }, 300);
    return () => clearTimeout(timer);
  }, [q]);

  // Rows shown follow the customers' changes.
  const { setData } = list;
  useEffect(() => {
    if (!gateway) return;
    const replace = (c: Customer) =>
      setData((p) => (p ? { ...p, customers: p.customers.map((x) => (x.id === c.id ? c : x)) } : p));
    const offs = [
      gateway.on('customer.update', (e) => replace(e.data.customer)),
      gateway.on('customer.merge', (e) => {
        replace(e.data.customer);
        setData((p) =>
          p ? { ...p, customers: p.customers.filter((x) => x.id !== e.data.mergedCustomerId) } : p,
        );
      }),
    ];
    return () => offs.forEach((off) => off());
  }, [gateway, setData]);

  const columns: Column<Customer>[] = [
    {
      key: 'name',
      label: t('contact.name'),
      render: (c) => (
        <Link href={`/contacts/${c.id}`}>
          <strong>{c.name}</strong>
        </Link>
      ),
    },
    {
      key: 'ids',
      label: t('contacts.identities'),
      render: (c) => [...new Set(c.identities.map((i) => i.value))].join(', '),
    },
    { key: 'seen', label: t('contact.lastSeen'), render: (c) => (c.lastSeenAt ? time(c.lastSeenAt) : '—') },
    {
      key: 'labels',
      label: t('contact.labels'),
      render: (c) => (
        <span className="label-chips">
          {c.labels.map((l) => (
            <span key={l.id} className="label-chip" style={{ borderColor: l.color }}>
              {l.name}
            </span>
          ))}
        </span>
      ),
    },
  ];

  return (
    <>
      <PageHeader title={t('contacts.title')}>
        <a
          className="btn"
          href={`/api/customers/export${query}`}
          download="contacts.csv"
          data-testid="contacts-export"
        >
          {t('contacts.export')}
        </a>
        {can('customers:manage') && (
          <button type="button" className="btn primary" onClick={() => setImporting(true)}>
            {t('contacts.import')}
          </button>
        )}
      </PageHeader>
      <form className="contacts-filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <label className="field">
          <span className="sr-only">{t('contacts.search')}</span>
          <input
            type="search"
            value={q}
            placeholder={t('contacts.search')}
            aria-label={t('contacts.search')}
            onChange={(e) => setQ(e.target.value)}
          />
        </label>
        {(labels.data ?? []).length > 0 && (
          <SelectField
            label={t('contacts.label')}
            value={label}
            onChange={(v) => {
              setLabel(v);
              setPage(1);
            }}
            options={[
              { value: '', label: t('contacts.anyLabel') },
              ...(labels.data ?? []).map((l) => ({ value: l.id, label: l.name })),
            ]}
          />
        )}
        {(defs.data ?? []).length > 0 && (
          <SelectField
            label={t('contacts.attribute')}
            value={attrKey}
            onChange={(v) => {
              setAttrKey(v);
              setAttrValue('');
              setPage(1);
            }}
            options={[
              { value: '', label: t('contacts.anyAttribute') },
              ...(defs.data ?? []).map((d) => ({ value: d.key, label: d.label })),
            ]}
          />
        )}
        {def && (
          <AttributeInput
            def={{ ...def, label: t('contacts.value') }}
            value={attrValue}
            onChange={(v) => {
              setAttrValue(v);
              setPage(1);
            }}
          />
        )}
      </form>
      <LoadState loading={list.loading && !list.data} error={list.error} onRetry={() => void list.reload()} />
      {list.data && (
        <>
          <DataTable
            caption={t('contacts.title')}
            columns={columns}
            rows={list.data.customers}
            rowKey={(c) => c.id}
            empty={t('contacts.empty')}
            testId="contacts-table"
          />
          <Pager page={page} limit={LIMIT} total={list.data.total} onPage={setPage} />
        </>
      )}
      {importing && <ImportDialog onClose={() => setImporting(false)} onDone={() => void list.reload()} />}
    </>
  );
}

/** Sends a CSV file as it is (text/csv) and shows what the import did, line by line. */
function ImportDialog(props: { onClose: () => void; onDone: () => void }) {
  const { t, lang } = useI18n();
  const { channels } = useDirectory();
  const [channelId, setChannelId] = useState(channels[0]?.id ?? '');
  const [file, setFile] = useState<File | null>(null);
  const [report, setReport] = useState<ImportReport | null>(null);
  const submit = useSubmit([]);
  const run = () =>
    submit.run(async () => {
      if (!file) throw new ApiError(400, [t('contacts.noFile')]);
      const res = await fetch(`/api/customers/import${qs({ channelId })}`, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'text/csv', accept: 'application/json', 'accept-language': lang },
        body: file,
      });
      const body = (await res.json().catch(() => null)) as
        (ImportReport & { message?: string | string[] }) | null;
      if (!res.ok) throw new ApiError(res.status, [body?.message ?? `HTTP ${res.status}`].flat());
      setReport(body);
      props.onDone();
    });
  return (
    <FormDialog
      title={t('contacts.import')}
      onClose={props.onClose}
      submit={submit}
      onSubmit={run}
      submitLabel={t('contacts.importDo')}
    >
      <SelectField
        label={t('contacts.importChannel')}
        value={channelId}
        onChange={setChannelId}
        options={channels.map((c) => ({ value: c.id, label: c.name }))}
      />
      <div className="field adm-field">
        <label htmlFor="import-file">{t('contacts.importFile')}</label>
        <input
          id="import-file"
          type="file"
          accept=".csv,text/csv"
          onChange={(e) => setFile(e.target.files?.[0] ?? null)}
          aria-describedby="import-hint"
        />
        <small id="import-hint" className="adm-hint">
          {t('contacts.importHint')}
        </small>
      </div>
      {report && (
        <div role="status" data-testid="import-report">
          <p>
            {t('contacts.importResult', {
              created: report.created,
              updated: report.updated,
              failed: report.failed,
            })}
          </p>
          {report.errors.length > 0 && (
            <ul className="contacts-import-errors">
              {report.errors.map((e) => (
                <li key={e.line}>{t('contacts.importLine', { line: e.line, message: e.message })}</li>
              ))}
            </ul>
          )}
        </div>
      )}
    </FormDialog>
  );
}

/** One contact: the panel, full width, and for admins the merge of another contact into it. */
function ContactPage(props: { id: string }) {
  const { t } = useI18n();
  const { can } = useMe();
  const [merging, setMerging] = useState(false);
  // A merge changes what the panel shows (addresses, notes…): it reads the contact again.
  const [version, setVersion] = useState(0);
  return (
    <>
      <PageHeader title={t('contacts.title')} back={<Link href="/contacts">← {t('contacts.back')}</Link>}>
        {can('customers:manage') && (
          <button type="button" className="btn" onClick={() => setMerging(true)}>
            {t('contact.merge')}
          </button>
        )}
        {can('customers:manage') && (
          <DataProtectionActions id={props.id} onErased={() => setVersion((v) => v + 1)} />
        )}
      </PageHeader>
      <ContactPanel key={`${props.id}:${version}`} customerId={props.id} full />
      {merging && (
        <MergeDialog
          id={props.id}
          onClose={() => setMerging(false)}
          onMerged={() => setVersion((v) => v + 1)}
        />
      )}
    </>
  );
}

/** Finds the other contact by a search, then asks before merging it into this one. */
function MergeDialog(props: { id: string; onClose: () => void; onMerged: () => void }) {
  const { t } = useI18n();
  const [q, setQ] = useState('');
  const [found, setFound] = useState<Customer[]>([]);
  const [picked, setPicked] = useState<Customer | null>(null);
  const [error, setError] = useState<string[]>([]);
  useEffect(() => {
    if (q.trim() === '') return setFound([]);
    const timer = setTimeout(() => {
      get<CustomerPage>(`/api/customers${qs({ q: q.trim(), limit: 10 })}`)
        .then((p) => setFound(p.customers.filter((c) => c.id !== props.id)))
        .catch((err: unknown) => setError(err instanceof ApiError ? err.messages : [t('common.error')]));
    }, 250);
    return () => clearTimeout(timer);
  }, [q, props.id, t]);
  if (picked) {
    return (
      <ConfirmDialog
        title={t('contact.merge')}
        message={t('contact.mergeConfirm', { name: picked.name })}
        confirmLabel={t('contact.mergeDo')}
        danger
        onClose={props.onClose}
        onConfirm={async () => {
          await post<Customer>(`/api/customers/${props.id}/merge`, { customerId: picked.id });
          props.onMerged();
        }}
      />
    );
  }
  return (
    <Dialog title={t('contact.merge')} onClose={props.onClose}>
      <div className="adm-dialog-body">
        <label className="field">
          <span>{t('contact.mergeSearch')}</span>
          <input type="search" value={q} onChange={(e) => setQ(e.target.value)} autoFocus />
        </label>
        <FormErrors messages={error} />
        <ul className="contacts-merge-found" data-testid="merge-candidates">
          {found.map((c) => (
            <li key={c.id}>
              <button type="button" className="btn small" onClick={() => setPicked(c)}>
                {c.name} · {c.identities.map((i) => i.value).join(', ')}
              </button>
            </li>
          ))}
        </ul>
        <div className="adm-actions">
          <button type="button" className="btn" onClick={props.onClose}>
            {t('common.cancel')}
          </button>
        </div>
      </div>
    </Dialog>
  );
}
