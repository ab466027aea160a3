import { createContext, useCallback, useContext, useMemo, useRef, type ReactNode } from 'react';
import { ApiError, post } from '../api';
import type { Me } from '../models';

/** Who is signed in, what they may do, and how they leave. */
export interface MeSession {
  me: Me;
  can(permission: string): boolean;
  logout(): Promise<void>;
}

const MeContext = createContext<MeSession | null>(null);

export function useMe(): MeSession {
  const v = useContext(MeContext);
  if (!v) throw new Error('useMe outside SessionProvider');
  return v;
}

export function MeProvider(props: { me: Me; onLoggedOut: (expired: boolean) => void; children: ReactNode }) {
  const { me } = props;
  const loggedOut = useRef(props.onLoggedOut);
  loggedOut.current = props.onLoggedOut;

  const can = useCallback((p: string) => me.permissions.includes(p), [me]);
  const logout = useCallback(async () => {
    await post('/auth/logout').catch((err: unknown) => {
      if (!(err instanceof ApiError)) throw err;
    });
    loggedOut.current(false);
  }, []);

  const value = useMemo(() => ({ me, can, logout }), [me, can, logout]);
  return <MeContext.Provider value={value}>{props.children}</MeContext.Provider>;
}
