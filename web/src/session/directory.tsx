import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { get } from '../api';
import type { Channel, Team, User } from '../models';
import { useMe } from './me';

/** The account's teams, users and channels, for names and pickers across the console. */
export interface Directory {
  teams: Team[];
  users: User[];
  channels: Channel[];
  /** Whether teams, users and channels have been loaded once (before, they are empty lists). */
  directoryLoaded: boolean;
  /** Team ids whose queues this user sees (all teams with chats:read_all). */
  myTeamIds: string[];
  /** Reads them again, after a change made here (a team renamed, a channel created…). */
  reloadDirectory(): Promise<void>;
}

const DirectoryContext = createContext<Directory | null>(null);

export function useDirectory(): Directory {
  const v = useContext(DirectoryContext);
  if (!v) throw new Error('useDirectory outside SessionProvider');
  return v;
}

export function DirectoryProvider(props: { children: ReactNode }) {
  const { me, can } = useMe();
  const [teams, setTeams] = useState<Team[]>([]);
  const [users, setUsers] = useState<User[]>([]);
  const [channels, setChannels] = useState<Channel[]>([]);
  const [directoryLoaded, setDirectoryLoaded] = useState(false);

  // A list the user may not read (an agent and the users) is an empty one.
  const reloadDirectory = useCallback(async () => {
    const [t, u, c] = await Promise.all([
      get<Team[]>('/api/teams').catch(() => [] as Team[]),
      get<User[]>('/api/users').catch(() => [] as User[]),
      get<Channel[]>('/api/channels').catch(() => [] as Channel[]),
    ]);
    setTeams(t);
    setUsers(u);
    setChannels(c);
    setDirectoryLoaded(true);
  }, []);

  useEffect(() => {
    void reloadDirectory();
  }, [reloadDirectory]);

  const myTeamIds = useMemo(
    () =>
      teams
        .filter((t) => t.status === 'active' && (can('chats:read_all') || t.members.includes(me.user.id)))
        .map((t) => t.id),
    [teams, can, me.user.id],
  );

  const value = useMemo(
    () => ({ teams, users, channels, directoryLoaded, myTeamIds, reloadDirectory }),
    [teams, users, channels, directoryLoaded, myTeamIds, reloadDirectory],
  );
  return <DirectoryContext.Provider value={value}>{props.children}</DirectoryContext.Provider>;
}
