import { useEffect, type JSX } from 'react';
import { useI18n } from '../i18n';
import { navigate } from '../router';
import { useMe } from '../session';
import { ApiKeysPage } from './api-keys';
import { AuditLogPage } from './audit-log';
import { BotsPage } from './bots';
import { CannedResponsesPage } from './canned';
import { AttributesPage } from './attributes';
import { ChannelPage } from './channel-page';
import { ChannelsPage } from './channels';
import { LabelsPage } from './labels';
import { RetentionPage } from './retention';
import { TeamsPage } from './teams';
import { UsersPage } from './users';
import { WebhookDeliveriesPage } from './webhook-deliveries';
import { WebhooksPage } from './webhooks';
import './styles/index.css';

export { CannedResponsesPage };

// The admin area: the console's router renders AdminArea for every path under /admin, and its
// navigation lists adminNav (the entries the user `can`). Each screen checks nothing else: the API
// answers 403 to whatever the user may not do, and the screens show that answer.

export const adminNav: { path: string; labelKey: string; permission: string }[] = [
  { path: '/admin/users', labelKey: 'nav.users', permission: 'users:manage' },
  { path: '/admin/teams', labelKey: 'nav.teams', permission: 'teams:manage' },
  { path: '/admin/labels', labelKey: 'nav.labels', permission: 'labels:manage' },
  { path: '/admin/channels', labelKey: 'nav.channels', permission: 'channels:manage' },
  { path: '/admin/api-keys', labelKey: 'nav.apiKeys', permission: 'api_keys:manage' },
  { path: '/admin/webhooks', labelKey: 'nav.webhooks', permission: 'webhooks:manage' },
  { path: '/admin/bots', labelKey: 'nav.bots', permission: 'webhooks:manage' },
  {
    path: '/admin/canned-responses',
    labelKey: 'nav.cannedAdmin',
    permission: 'canned_responses:manage_team',
  },
  { path: '/admin/attributes', labelKey: 'nav.attributes', permission: 'customers:manage' },
  { path: '/admin/retention', labelKey: 'nav.retention', permission: 'customers:manage' },
  { path: '/admin/audit', labelKey: 'nav.audit', permission: 'audit:read' },
];

export function AdminArea(props: { path: string }): JSX.Element {
  const { t } = useI18n();
  const { can } = useMe();
  const parts = props.path.split('/').filter(Boolean); // ['admin', section, id?, tab?]
  const section = parts[1];
  const entry = adminNav.find((n) => n.path === `/admin/${section ?? ''}`);
  const first = adminNav.find((n) => can(n.permission));

  useEffect(() => {
    // /admin alone: the first screen this user may use.
    if (!section && first) navigate(first.path, { replace: true });
  }, [section, first]);

  let page: JSX.Element;
  if (!entry) page = <p className="muted">{t(section ? 'admin.notFound' : 'admin.forbidden')}</p>;
  else if (!can(entry.permission)) page = <p className="muted">{t('admin.forbidden')}</p>;
  else if (section === 'users') page = <UsersPage />;
  else if (section === 'teams') page = <TeamsPage />;
  else if (section === 'labels') page = <LabelsPage />;
  else if (section === 'channels')
    page = parts[2] ? (
      <ChannelPage
        id={parts[2]}
        tab={
          parts[3] === 'api' ? 'api' : parts[3] === 'flow' ? 'flow' : parts[3] === 'bot' ? 'bot' : 'general'
        }
      />
    ) : (
      <ChannelsPage />
    );
  else if (section === 'api-keys') page = <ApiKeysPage />;
  else if (section === 'retention') page = <RetentionPage />;
  else if (section === 'canned-responses') page = <CannedResponsesPage mode="admin" />;
  else if (section === 'attributes') page = <AttributesPage />;
  else if (section === 'bots') page = <BotsPage />;
  else if (section === 'audit') page = <AuditLogPage />;
  else if (section === 'webhooks')
    page = parts[2] ? <WebhookDeliveriesPage id={parts[2]} /> : <WebhooksPage />;
  else page = <p className="muted">{t('admin.notFound')}</p>;

  return (
    <section className="page adm-page" data-path={props.path}>
      {page}
    </section>
  );
}
