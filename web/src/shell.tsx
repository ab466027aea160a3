import { Suspense, useEffect, useMemo, useState } from 'react';
import { adminNav, AdminArea, CannedResponsesPage } from './admin/index';
import { PreferencesDialog } from './alerts/preferences-dialog';
import { AvailabilitySwitch } from './availability';
import { LangSwitch } from './components';
import { BoardPage } from './board/board-page';
import { ContactsArea } from './contacts/contacts-page';
import { useI18n } from './i18n';
import { useCommands, useKeys, type Command } from './keys/registry';
import { Inbox } from './inbox/inbox';
import { MentionsPage } from './mentions';
import { Notifications, NotificationToasts } from './notifications';
import { canReadReports, MyDayPage, ReportsPage } from './reports';
import { Link, navigate, usePath } from './router';
import { useGateway, useMe } from './session';
import { Simulator } from './simulator';

/** The signed-in console: header with navigation, connection state and notifications; one page below. */
export function Shell() {
  const { t, tr, lang, setLang } = useI18n();
  const { me, can, logout } = useMe();
  const { openHelp } = useKeys();
  const [prefsOpen, setPrefsOpen] = useState(false);
  const { conn } = useGateway();
  const path = usePath();
  const [menuOpen, setMenuOpen] = useState(false);

  useEffect(() => {
    if (path === '/' || path === '/login') navigate('/inbox', { replace: true });
  }, [path]);
  useEffect(() => setMenuOpen(false), [path]);

  // The live board: admins (every team) and supervisors (their own).
  const supervises = can('chats:supervise') || can('chats:supervise_team');
  const nav = [
    { path: '/inbox', label: t('nav.inbox') },
    ...(supervises ? [{ path: '/board', label: t('nav.board') }] : []),
    { path: '/contacts', label: t('nav.contacts') },
    { path: '/mentions', label: t('nav.mentions') },
    { path: '/simulator', label: t('nav.simulator') },
    { path: '/canned-responses', label: t('nav.canned') },
    { path: '/my-day', label: t('nav.myDay') },
    ...(canReadReports(can) ? [{ path: '/reports', label: t('nav.reports') }] : []),
    ...adminNav.filter((n) => can(n.permission)).map((n) => ({ path: n.path, label: tr(n.labelKey) })),
  ];
  const current = (p: string) => path === p || path.startsWith(`${p}/`);

  // The palette's actions everywhere: each page, the preferences, the shortcuts, the language.
  const navKey = nav.map((n) => `${n.path}=${n.label}`).join('|');
  const commands = useMemo<Command[]>(
    () => [
      ...navKey.split('|').map((entry) => {
        const [to = '', label = ''] = entry.split('=');
        return {
          id: `go:${to}`,
          group: 'go' as const,
          title: t('keys.goTo', { page: label }),
          run: () => navigate(to),
        };
      }),
      { id: 'alerts.prefs', group: 'general', title: t('alerts.pref.title'), run: () => setPrefsOpen(true) },
      { id: 'keys.help', group: 'general', title: t('keys.helpTitle'), keys: '?', run: openHelp },
      {
        id: 'lang',
        group: 'general',
        title: lang === 'pt-BR' ? 'Switch to English' : 'Mudar para português',
        run: () => setLang(lang === 'pt-BR' ? 'en' : 'pt-BR'),
      },
      { id: 'logout', group: 'general', title: t('nav.logout'), run: () => void logout() },
    ],
    [navKey, t, openHelp, lang, setLang, logout],
  );
  useCommands(commands);

  let page;
  if (path.startsWith('/admin')) page = <AdminArea path={path} />;
  else if (current('/simulator')) page = <Simulator path={path} />;
  else if (current('/mentions')) page = <MentionsPage />;
  else if (current('/board')) page = <BoardPage />;
  else if (current('/canned-responses'))
    page = (
      <section className="page adm-page">
        <CannedResponsesPage mode="personal" />
      </section>
    );
  else if (current('/contacts')) page = <ContactsArea path={path} />;
  else if (current('/my-day')) page = <MyDayPage />;
  else if (current('/reports'))
    page = canReadReports(can) ? (
      <ReportsPage />
    ) : (
      <section className="page">
        <p className="muted">{t('admin.forbidden')}</p>
      </section>
    );
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
          <AvailabilitySwitch />
          <Notifications onPreferences={() => setPrefsOpen(true)} />
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
        <Suspense
          fallback={
            <p className="page muted" role="status">
              {t('common.loading')}
            </p>
          }
        >
          {page}
        </Suspense>
      </main>
      <NotificationToasts />
      {prefsOpen && <PreferencesDialog onClose={() => setPrefsOpen(false)} />}
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
