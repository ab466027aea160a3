import { useCallback, useEffect, useState } from 'react';
import { get, onUnauthorized } from './api';
import { useI18n } from './i18n';
import { Login } from './login';
import { SessionProvider } from './session';
import { Shell } from './shell';
import type { Me } from './types';

type Boot = { state: 'loading' } | { state: 'anonymous'; expired: boolean } | { state: 'in'; me: Me };

/** Restores the session from the cookie (GET /api/me), else shows the login form. */
export function App() {
  const { t } = useI18n();
  const [boot, setBoot] = useState<Boot>({ state: 'loading' });

  useEffect(() => {
    let cancelled = false;
    get<Me>('/api/me')
      .then((me) => !cancelled && setBoot({ state: 'in', me }))
      // 401, or the server unreachable: the form, which reports its own errors on submit.
      .catch(() => !cancelled && setBoot({ state: 'anonymous', expired: false }));
    return () => {
      cancelled = true;
    };
  }, []);

  useEffect(
    () =>
      onUnauthorized(() => setBoot((b) => (b.state === 'in' ? { state: 'anonymous', expired: true } : b))),
    [],
  );

  const loggedOut = useCallback((expired: boolean) => setBoot({ state: 'anonymous', expired }), []);

  if (boot.state === 'loading') {
    return (
      <div className="boot" role="status">
        {t('common.loading')}
      </div>
    );
  }
  if (boot.state === 'anonymous') {
    return <Login expired={boot.expired} onLoggedIn={(me) => setBoot({ state: 'in', me })} />;
  }
  return (
    <SessionProvider key={boot.me.user.id} me={boot.me} onLoggedOut={loggedOut}>
      <Shell />
    </SessionProvider>
  );
}
