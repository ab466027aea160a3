import { useCallback, useEffect, useState } from 'react';
import { ApiError, get } from '../api';
import type {
  AttributeDefinition,
  Customer,
  CustomerChat,
  CustomerNote,
  CustomerNotePage,
  LabelItem,
} from '../models';
import { useGateway } from '../session';

// What the contact panel shows of one customer, kept live by the gateway's customer events: the
// customer, its notes, the account's attribute definitions and labels, and its conversations.

export interface CustomerState {
  /** The customer shown: a merge of this one into another switches to the other. */
  id: string;
  customer: Customer | null;
  notes: CustomerNote[];
  defs: AttributeDefinition[];
  /** The account's labels, or null when they cannot be read. */
  labels: LabelItem[] | null;
  /** The customer's conversations, or null when they cannot be read. */
  chats: CustomerChat[] | null;
  error: string[] | null;
  /** The customer ceased to exist (merged into another this console could not follow). */
  gone: boolean;
  setCustomer(c: Customer): void;
  upsertNote(n: CustomerNote): void;
  removeNote(id: string): void;
  reload(): Promise<void>;
}

export function useCustomer(initialId: string): CustomerState {
  const { gateway } = useGateway();
  const [id, setId] = useState(initialId);
  const [customer, setCustomer] = useState<Customer | null>(null);
  const [notes, setNotes] = useState<CustomerNote[]>([]);
  const [defs, setDefs] = useState<AttributeDefinition[]>([]);
  const [labels, setLabels] = useState<LabelItem[] | null>(null);
  const [chats, setChats] = useState<CustomerChat[] | null>(null);
  const [error, setError] = useState<string[] | null>(null);
  const [gone, setGone] = useState(false);

  useEffect(() => setId(initialId), [initialId]);

  const reload = useCallback(async () => {
    setError(null);
    setGone(false);
    try {
      const [c, n, d] = await Promise.all([
        get<Customer>(`/api/customers/${id}`),
        get<CustomerNotePage>(`/api/customers/${id}/notes?limit=50`),
        get<AttributeDefinition[]>('/api/customer-attributes'),
      ]);
      setCustomer(c);
      setNotes(n.notes);
      setDefs(d);
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) setGone(true);
      setError(err instanceof ApiError ? err.messages : ['network']);
    }
    // Read from operations of their own; the panel shows what it can without them.
    get<LabelItem[]>('/api/labels').then(setLabels, () => setLabels(null));
    get<{ chats: CustomerChat[] }>(`/api/customers/${id}/chats?limit=20`).then(
      (p) => setChats(p.chats),
      () => setChats(null),
    );
  }, [id]);

  useEffect(() => {
    setCustomer(null);
    setNotes([]);
    void reload();
  }, [reload]);

  useEffect(() => {
    if (!gateway) return;
    const offs = [
      gateway.on('customer.update', (e) => {
        if (e.data.customer.id === id) setCustomer(e.data.customer);
      }),
      gateway.on('customer.merge', (e) => {
        if (e.data.customer.id === id) {
          setCustomer(e.data.customer);
          void reload();
        } else if (e.data.mergedCustomerId === id) setId(e.data.customer.id);
      }),
      gateway.on('customer.note', (e) => {
        const note = e.data.note;
        if (note.customerId !== id) return;
        if (e.data.action === 'deleted') setNotes((ns) => ns.filter((x) => x.id !== note.id));
        else setNotes((ns) => upsert(ns, note));
      }),
    ];
    // After a reconnection that lost events, read everything again.
    offs.push(gateway.onResync(() => void reload()));
    return () => offs.forEach((off) => off());
  }, [gateway, id, reload]);

  return {
    id,
    customer,
    notes,
    defs,
    labels,
    chats,
    error,
    gone,
    setCustomer,
    upsertNote: (n) => setNotes((ns) => upsert(ns, n)),
    removeNote: (noteId) => setNotes((ns) => ns.filter((x) => x.id !== noteId)),
    reload,
  };
}

/** A note put in place of its old copy, or first (newest first). */
function upsert(notes: CustomerNote[], note: CustomerNote): CustomerNote[] {
  return notes.some((x) => x.id === note.id)
    ? notes.map((x) => (x.id === note.id ? note : x))
    : [note, ...notes];
}
