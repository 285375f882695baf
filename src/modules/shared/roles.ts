// The roles of an account's users and what each may do (issue 29, decisions 21): checked in one
// place, `can`, by every dashboard route (its routeKit) and by the services that change the team.

export const ROLES = ['owner', 'admin', 'issuer', 'designer', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export const PERMISSIONS = [
  /** See certificates, templates, imports, usage: every role. */
  'read',
  /** Issue, send, revoke, reissue, imports, ZIP exports. */
  'issue',
  /** Templates and the studio. */
  'design',
  /** API keys. */
  'keys',
  /** The team: invite, change roles, remove (an owner only by an owner). */
  'team',
  /** The organisation's profile, its settings, sign-in (SSO), signing keys. */
  'organisation',
  /** The audit log and its export. */
  'audit',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

const GRANTS: Record<Role, readonly Permission[]> = {
  owner: PERMISSIONS,
  admin: PERMISSIONS,
  issuer: ['read', 'issue'],
  designer: ['read', 'design'],
  viewer: ['read'],
};

export function can(role: Role, permission: Permission): boolean {
  return GRANTS[role].includes(permission);
}

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

// What a role is called on the pages.
export const ROLE_LABELS: Record<Role, string> = {
  owner: 'Owner',
  admin: 'Admin',
  issuer: 'Issuer',
  designer: 'Designer',
  viewer: 'Viewer',
};
