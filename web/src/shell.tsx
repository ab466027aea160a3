import { useEffect, useState } from 'react';
import { adminNav, AdminArea, CannedResponsesPage } from './admin/index';
import { LangSwitch } from './components';
import { ContactsArea } from './contacts/contacts-page';
import { useI18n } from './i18n';
import { Inbox } from './inbox/inbox';
import { Notifications, NotificationToasts } from './notifications';
import { Link, navigate, usePath } from './router';
import { useGateway, useMe } from './session';
import { Simulator } from './simulator';

/** The signed-in console: header with navigation, connection state and notifications; one page below. */
export function Shell() {
  const { t, tr } = useI18n();
  const { me, can, logout } = useMe();
  const { conn } = useGateway();
  const path = usePath();
  const [menuOpen, setMenuOpen] = useState(false);

  useEffect(() => {
    if (path === '/' || path === '/login') navigate('/inbox', { replace: true });
  }, [path]);
  useEffect(() => setMenuOpen(false), [path]);

  const nav = [
    { path: '/inbox', label: t('nav.inbox') },
    { path: '/contacts', label: t('nav.contacts') },
    { path: '/simulator', label: t('nav.simulator') },
    { path: '/canned-responses', label: t('nav.canned') },
    ...adminNav.filter((n) => can(n.permission)).map((n) => ({ path: n.path, label: tr(n.labelKey) })),
  ];
  const current = (p: string) => path === p || path.startsWith(`${p}/`);

  let page;
  if (path.startsWith('/admin')) page = <AdminArea path={path} />;
  else if (current('/simulator')) page = <Simulator path={path} />;
  else if (current('/canned-responses'))
    page = (
      <section className="page adm-page">
        <CannedResponsesPage mode="personal" />
      </section>
    );
  else if (current('/contacts')) page = <ContactsArea path={path} />;
  else page = <Inbox path={path} />;

  return (
    <div className="shell" data-conn={conn}>
      <a className="skip" href="#main">
        {t('app.skip')}
      </a>
      <header className="topbar">
        <Link href="/inbox" className="brand">
          <img src="/favicon.svg" alt="" width={28} height={28} />
          <span>{t('app.name')}</span>
        </Link>
        <button
          type="button"
          className="btn ghost menu-toggle"
          aria-expanded={menuOpen}
          aria-controls="main-nav"
          onClick={() => setMenuOpen((o) => !o)}
        >
          {t('nav.menu')}
        </button>
        <nav id="main-nav" className={menuOpen ? 'nav open' : 'nav'} aria-label={t('nav.menu')}>
          {nav.map((n) => (
            <Link key={n.path} href={n.path} aria-current={current(n.path) ? 'page' : undefined}>
              {n.label}
            </Link>
          ))}
          {/* On a phone the top bar has no room for the language: it is in the menu instead. */}
          <div className="nav-lang">
            <LangSwitch />
          </div>
        </nav>
        <div className="topbar-end">
          <ConnIndicator />
          <Notifications />
          <LangSwitch />
          <span className="me" title={me.user.email}>
            {me.user.name}
          </span>
          <button type="button" className="btn ghost" onClick={() => void logout()}>
            {t('nav.logout')}
          </button>
        </div>
      </header>
      {conn === 'reconnecting' && (
        <div className="conn-banner" role="status" data-testid="reconnecting">
          {t('conn.reconnecting')}
        </div>
      )}
      <main id="main" className="main" tabIndex={-1}>
        {page}
      </main>
      <NotificationToasts />
    </div>
  );
}

function ConnIndicator() {
  const { t } = useI18n();
  const { conn } = useGateway();
  const label = conn === 'online' ? t('conn.online') : t('conn.reconnecting');
  return (
    <span className={`conn-dot ${conn}`} title={label}>
      <span className="sr-only">{label}</span>
    </span>
  );
}
