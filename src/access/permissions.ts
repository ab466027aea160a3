export const PERMISSIONS = [
  'api_keys:manage',
  'users:manage',
  'teams:manage',
  'channels:manage',
  'webhooks:manage',
  'labels:manage',
  'chats:attend',
  'chats:transfer',
  'chats:read_all',
  'chats:supervise',
  'chats:supervise_team',
  'canned_responses:manage',
  'canned_responses:manage_team',
  'customers:manage',
  'audit:read',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

export const ROLE_NAMES = ['admin', 'supervisor', 'agent'] as const;
export type RoleName = (typeof ROLE_NAMES)[number];

export const BUILT_IN_ROLES: Record<RoleName, Permission[]> = {
  admin: [...PERMISSIONS],
  supervisor: [
    'teams:manage',
    'chats:attend',
    'chats:transfer',
    'chats:read_all',
    'chats:supervise_team',
    'canned_responses:manage_team',
  ],
  agent: ['chats:attend', 'chats:transfer'],
};

/** Scopes of account API keys: one per Channel API route. */
export const API_KEY_SCOPES = [
  'chats:read',
  'chats:write',
  'chats:transfer',
  'users:read',
  'teams:read',
] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];
