import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { get } from '../api';
import type { Label } from '../models';
import { useGateway } from './gateway';

/** The account's labels, kept live by the gateway (label.create, label.update, label.delete). */
export interface Labels {
  labels: Label[];
  labelById: Map<string, Label>;
  /** Whether they have been loaded once (before, a chip keeps the name and colour its chat carries). */
  labelsLoaded: boolean;
  reloadLabels(): Promise<void>;
}

const LabelsContext = createContext<Labels | null>(null);

export function useLabels(): Labels {
  const v = useContext(LabelsContext);
  if (!v) throw new Error('useLabels outside SessionProvider');
  return v;
}

const byName = (a: Label, b: Label) => a.name.localeCompare(b.name, undefined, { sensitivity: 'base' });

export function LabelsProvider(props: { children: ReactNode }) {
  const { gateway } = useGateway();
  const [labels, setLabels] = useState<Label[]>([]);
  const [labelsLoaded, setLoaded] = useState(false);

  const reloadLabels = useCallback(async () => {
    try {
      setLabels(await get<Label[]>('/api/labels'));
      setLoaded(true);
    } catch {
      // Chips keep what their chats carry; the next resync tries again.
    }
  }, []);

  useEffect(() => {
    void reloadLabels();
  }, [reloadLabels]);

  useEffect(() => {
    if (!gateway) return;
    const put = (label: Label) =>
      setLabels((prev) => [...prev.filter((l) => l.id !== label.id), label].sort(byName));
    const offs = [
      gateway.on('label.create', (e) => put(e.data.label)),
      gateway.on('label.update', (e) => put(e.data.label)),
      gateway.on('label.delete', (e) => setLabels((prev) => prev.filter((l) => l.id !== e.data.label.id))),
      gateway.onResync(() => void reloadLabels()),
    ];
    return () => offs.forEach((off) => off());
  }, [gateway, reloadLabels]);

  const value = useMemo(
    () => ({ labels, labelById: new Map(labels.map((l) => [l.id, l])), labelsLoaded, reloadLabels }),
    [labels, labelsLoaded, reloadLabels],
  );
  return <LabelsContext.Provider value={value}>{props.children}</LabelsContext.Provider>;
}
