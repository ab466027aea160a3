import { createContext, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { get } from '../api';
import type { ConsoleConfig } from '../models';
import { useDirectory } from './directory';
import { Gateway, type ConnState } from './gateway-client';
import { useMe } from './me';

/** The signed-in user's connection to the Socket.IO gateway, subscribed to their teams' rooms. */
export interface GatewaySession {
  /** Null until the console's configuration said where the gateway is. */
  gateway: Gateway | null;
  conn: ConnState;
}

const GatewayContext = createContext<GatewaySession | null>(null);

export function useGateway(): GatewaySession {
  const v = useContext(GatewayContext);
  if (!v) throw new Error('useGateway outside SessionProvider');
  return v;
}

/** The gateway's address: the configured one, else its port on the host this page came from. */
async function loadConfig(): Promise<{ gatewayUrl: string; gatewayPath: string }> {
  let cfg: ConsoleConfig = {
    gatewayUrl: null,
    gatewayPort: 3001,
    gatewayPath: '/socket.io',
    needsFirstAdmin: false,
  };
  try {
    const res = await fetch('/console.json', { credentials: 'same-origin' });
    if (res.ok) cfg = (await res.json()) as ConsoleConfig;
  } catch {
    // keep the default: the gateway's default port on this host
  }
  const gatewayUrl =
    cfg.gatewayUrl ?? `${location.protocol}//${location.hostname}:${cfg.gatewayPort ?? 3001}`;
  return { gatewayUrl, gatewayPath: cfg.gatewayPath };
}

export function GatewayProvider(props: { children: ReactNode }) {
  const { me } = useMe();
  const { myTeamIds } = useDirectory();
  const [gateway, setGateway] = useState<Gateway | null>(null);
  const [conn, setConn] = useState<ConnState>('connecting');

  useEffect(() => {
    let gw: Gateway | null = null;
    let cancelled = false;
    void loadConfig().then((cfg) => {
      if (cancelled) return;
      gw = new Gateway(cfg.gatewayUrl, cfg.gatewayPath, me.user.id, () => {
        // The gateway refused the token: check the session through REST, which signs out on 401.
        void get('/api/me').catch(() => undefined);
      });
      gw.onState(setConn);
      setGateway(gw);
    });
    return () => {
      cancelled = true;
      gw?.close();
    };
  }, [me.user.id]);

  useEffect(() => {
    gateway?.joinTeams(myTeamIds);
  }, [gateway, myTeamIds]);

  const value = useMemo(() => ({ gateway, conn }), [gateway, conn]);
  return <GatewayContext.Provider value={value}>{props.children}</GatewayContext.Provider>;
}
