import { useCallback, useEffect, useState } from 'react';
import { AlertsProvider } from './alerts/alerts';
import { ApiError, get, onUnauthorized } from './api';
import { useI18n } from './i18n';
import { KeysProvider } from './keys/provider';
import { Login } from './login';
import { SessionProvider } from './session';
import { Shell } from './shell';
import type { Me } from './models';

type Boot = { state: 'loading' } | { state: 'anonymous'; expired: boolean } | { state: 'in'; me: Me };

// Whether this browser holds a session cookie (HttpOnly, so unreadable here): set at login, cleared
// at logout or on a 401. Without it the login form shows at once, with no request answered 401.
const SIGNED_IN = 'atende.signedIn';
const rememberSignedIn = (on: boolean) =>
  on ? localStorage.setItem(SIGNED_IN, '1') : localStorage.removeItem(SIGNED_IN);

/** Restores the session from the cookie (GET /api/me), else shows the login form. */
export function App() {
  const { t } = useI18n();
  const [boot, setBoot] = useState<Boot>(() =>
    localStorage.getItem(SIGNED_IN) ? { state: 'loading' } : { state: 'anonymous', expired: false },
  );

  useEffect(() => {
    if (!localStorage.getItem(SIGNED_IN)) return;
    let cancelled = false;
    get<Me>('/api/me')
      .then((me) => !cancelled && setBoot({ state: 'in', me }))
      // 401, or the server unreachable: the form, which reports its own errors on submit.
      .catch((err: unknown) => {
        if (err instanceof ApiError && err.status === 401) rememberSignedIn(false);
        if (!cancelled) setBoot({ state: 'anonymous', expired: false });
      });
    return () => {
      cancelled = true;
    };
  }, []);

  useEffect(
    () =>
      onUnauthorized(() => {
        rememberSignedIn(false);
        setBoot((b) => (b.state === 'in' ? { state: 'anonymous', expired: true } : b));
      }),
    [],
  );

  const loggedOut = useCallback((expired: boolean) => {
    rememberSignedIn(false);
    setBoot({ state: 'anonymous', expired });
  }, []);
  const loggedIn = useCallback((me: Me) => {
    rememberSignedIn(true);
    setBoot({ state: 'in', me });
  }, []);

  if (boot.state === 'loading') {
    return (
      <div className="boot" role="status">
        {t('common.loading')}
      </div>
    );
  }
  if (boot.state === 'anonymous') {
    return <Login expired={boot.expired} onLoggedIn={loggedIn} />;
  }
  return (
    <SessionProvider key={boot.me.user.id} me={boot.me} onLoggedOut={loggedOut}>
      <AlertsProvider>
        <KeysProvider>
          <Shell />
        </KeysProvider>
      </AlertsProvider>
    </SessionProvider>
  );
}
