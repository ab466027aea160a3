import { lazy } from 'react';

// Reports (/reports, supervisors and admins) and "Meu dia" (/my-day, everyone): the console's entry
// to them. Their pages — and Chart.js with them (docs/adr/0091-report-charts.md) — are a chunk of
// their own, fetched when one is opened: an agent's console does not download the charts to attend.

export const ReportsPage = lazy(() => import('./reports-page').then((m) => ({ default: m.ReportsPage })));
export const MyDayPage = lazy(() => import('./my-day').then((m) => ({ default: m.MyDayPage })));

/**
 * Whether the user may read the account's or their teams' reports: supervisors and admins. The API
 * answers 403 to anyone else; the navigation only hides what would be refused.
 */
export const canReadReports = (can: (permission: string) => boolean): boolean =>
  can('chats:supervise') || can('chats:supervise_team');
