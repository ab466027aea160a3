import { useEffect, useState, type FormEvent } from 'react';
import { ApiError, get, post } from './api';
import { LangSwitch } from './components';
import { useI18n } from './i18n';
import type { ConsoleConfig, Me } from './models';

export function Login(props: { expired: boolean; onLoggedIn: (me: Me) => void }) {
  const { t } = useI18n();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [needsFirstAdmin, setNeedsFirstAdmin] = useState(false);

  // A new installation has no user: say how to create the first admin rather than let every attempt
  // read as a wrong password.
  useEffect(() => {
    let live = true;
    fetch('/console.json', { credentials: 'same-origin' })
      .then((res) => (res.ok ? (res.json() as Promise<ConsoleConfig>) : null))
      .then((cfg) => live && setNeedsFirstAdmin(cfg?.needsFirstAdmin === true))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, []);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await post('/auth/login', { email: email.trim(), password });
      props.onLoggedIn(await get<Me>('/api/me'));
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) setError(t('login.failed'));
      else if (err instanceof ApiError && err.status !== 0) setError(err.message);
      else setError(t('common.error'));
      setBusy(false);
    }
  };

  return (
    <main className="login">
      <form className="card login-card" onSubmit={(e) => void submit(e)} aria-labelledby="login-title">
        <div className="login-brand">
          <img src="/favicon.svg" alt="" width={40} height={40} />
          <h1 id="login-title">{t('login.title')}</h1>
        </div>
        {props.expired && !error && (
          <p className="notice" role="status">
            {t('login.expired')}
          </p>
        )}
        {needsFirstAdmin && (
          <div className="notice" role="status" data-testid="first-admin-hint">
            <p>{t('login.noUsers')}</p>
            <pre>
              <code>npm run admin:create -- --email you@example.com</code>
            </pre>
            <p>{t('login.noUsersEnv')}</p>
          </div>
        )}
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <label className="field">
          <span>{t('login.email')}</span>
          <input
            type="email"
            name="email"
            autoComplete="username"
            required
            autoFocus
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
        </label>
        <label className="field">
          <span>{t('login.password')}</span>
          <input
            type="password"
            name="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </label>
        <button type="submit" className="btn primary wide" disabled={busy}>
          {t('login.submit')}
        </button>
        <LangSwitch />
      </form>
    </main>
  );
}
