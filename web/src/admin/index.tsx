import type { JSX } from 'react';
import { useI18n } from '../i18n';

// Placeholder of the admin area: the admin screens replace this file. The console's router renders
// AdminArea for every path under /admin, and its navigation lists adminNav (entries the user `can`).

export const adminNav: { path: string; labelKey: string; permission: string }[] = [
  { path: '/admin/users', labelKey: 'nav.users', permission: 'users:manage' },
  { path: '/admin/teams', labelKey: 'nav.teams', permission: 'teams:manage' },
  { path: '/admin/channels', labelKey: 'nav.channels', permission: 'channels:manage' },
  { path: '/admin/api-keys', labelKey: 'nav.apiKeys', permission: 'api_keys:manage' },
  { path: '/admin/webhooks', labelKey: 'nav.webhooks', permission: 'webhooks:manage' },
];

export function AdminArea(props: { path: string }): JSX.Element {
  const { t } = useI18n();
  return (
    <section className="page" data-path={props.path}>
      <h1>{t('nav.admin')}</h1>
      <p>{t('common.unavailable')}</p>
    </section>
  );
}
