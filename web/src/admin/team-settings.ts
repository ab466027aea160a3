import { useCallback, useEffect, useRef, useState } from 'react';
import { get } from '../api';
import type { Envelope, EventName, Team } from '../models';
import { useGateway } from '../session';

/**
 * One setting of every team on the teams page (business hours, assignment, SLA), read one team at a
 * time from `path(teamId)` and kept live by the event that announces a team's change (`pick` takes
 * the setting out of it), read again after a resync. `saved` puts the editor's answer in place.
 */
export function useTeamSettings<T extends { teamId: string }, E extends EventName>(
  teams: Team[] | null,
  path: (teamId: string) => string,
  event: E,
  pick: (envelope: Envelope<E>) => T,
) {
  const [byTeam, setByTeam] = useState<Record<string, T>>({});
  const ids = (teams ?? []).map((t) => t.id).join(',');
  // Held in refs: a caller's new closures at each render must not reload every team or resubscribe.
  const pathRef = useRef(path);
  const pickRef = useRef(pick);
  pathRef.current = path;
  pickRef.current = pick;
  const loadOne = useCallback(async (id: string) => {
    try {
      const value = await get<T>(pathRef.current(id));
      setByTeam((prev) => ({ ...prev, [id]: value }));
    } catch {
      // The summary stays empty; the editor reads the setting again when opened.
    }
  }, []);
  useEffect(() => {
    for (const id of ids ? ids.split(',') : []) void loadOne(id);
  }, [ids, loadOne]);
  const { gateway } = useGateway();
  useEffect(() => {
    if (!gateway) return;
    const offs = [
      gateway.on(event, (e) => {
        const value = pickRef.current(e);
        setByTeam((prev) => ({ ...prev, [value.teamId]: value }));
      }),
      gateway.onResync(() => {
        for (const id of ids ? ids.split(',') : []) void loadOne(id);
      }),
    ];
    return () => offs.forEach((off) => off());
  }, [gateway, event, ids, loadOne]);
  const saved = useCallback((value: T) => setByTeam((prev) => ({ ...prev, [value.teamId]: value })), []);
  return { byTeam, saved, loadOne };
}
