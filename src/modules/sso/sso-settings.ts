import { ValidationError } from '../../platform/errors.js';
import { isRole, ROLE_LABELS, type Role } from '../shared/roles.js';
import { isLoopbackHost } from './oidc.js';

// The Settings > Sign-in form's values, checked. Owners are never made by SSO: neither the role for
// new users nor a mapped role may be `owner` (an admin could otherwise mint owners).

export type SsoRole = Exclude<Role, 'owner'>;
export const SSO_ROLES: readonly SsoRole[] = ['admin', 'issuer', 'designer', 'viewer'];

/** What the form sends; the secret is '' when left empty (keep the stored one). */
export interface SsoInput {
  issuerUrl: string;
  clientId: string;
  clientSecret: string;
  allowedDomains: string;
  defaultRole: string;
  roleClaim: string;
  roleMap: string;
  /** Only an owner's form carries it; undefined keeps the stored value. */
  passwordSignIn?: boolean;
}

export interface SsoFields {
  issuerUrl: string;
  clientId: string;
  allowedDomains: string[];
  defaultRole: SsoRole;
  roleClaim: string | null;
  roleMap: Record<string, SsoRole>;
}

const MAX_DOMAINS = 50;
const MAX_MAPPINGS = 100;
const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/;
const CLAIM = /^[A-Za-z0-9_:./-]{1,100}$/;

function refuse(path: string, message: string): never {
  throw new ValidationError([{ path: [path], message }], message);
}

function issuerUrl(raw: string): string {
  const text = raw.trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return refuse('issuerUrl', 'The issuer URL is not a URL (e.g. https://login.example.org/realms/staff)');
  }
  if (text.length > 500) refuse('issuerUrl', 'The issuer URL is longer than 500 characters');
  if (url.search || url.hash || url.username || url.password) {
    refuse('issuerUrl', 'The issuer URL has no query, fragment or credentials');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    refuse(
      'issuerUrl',
      'The issuer URL must start with https:// (plain http only for a provider on this host)',
    );
  }
  return text;
}

export function domainList(raw: string): string[] {
  const domains = [
    ...new Set(
      raw
        .split(/[\s,;]+/)
        .map((d) => d.trim().toLowerCase().replace(/^@/, ''))
        .filter(Boolean),
    ),
  ];
  if (domains.length === 0)
    refuse('allowedDomains', 'Name at least one allowed email domain (e.g. example.org)');
  if (domains.length > MAX_DOMAINS) refuse('allowedDomains', `At most ${MAX_DOMAINS} allowed email domains`);
  for (const d of domains) if (!DOMAIN.test(d)) refuse('allowedDomains', `"${d}" is not an email domain`);
  return domains;
}

function ssoRole(path: string, raw: string): SsoRole {
  const role = raw.trim().toLowerCase();
  if (role === 'owner')
    refuse(path, 'Single sign-on never makes owners: choose Admin, Issuer, Designer or Viewer');
  if (!isRole(role)) refuse(path, `"${raw.trim()}" is not a role (Admin, Issuer, Designer or Viewer)`);
  return role as SsoRole;
}

// Lines of `claim value=role`, e.g. `certsvc-admins=admin`.
function roleMap(raw: string): Record<string, SsoRole> {
  const map: Record<string, SsoRole> = {};
  const lines = raw
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  if (lines.length > MAX_MAPPINGS) refuse('roleMap', `At most ${MAX_MAPPINGS} role mappings`);
  for (const line of lines) {
    const eq = line.lastIndexOf('=');
    const value = line.slice(0, eq).trim();
    if (eq < 1 || !value || value.length > 200) {
      refuse(
        'roleMap',
        `"${line}" is not a mapping: write one per line as claim value=role, e.g. staff-admins=admin`,
      );
    }
    map[value] = ssoRole('roleMap', line.slice(eq + 1));
  }
  return map;
}

/** The form's fields, checked; `hadSecret` says whether an empty secret keeps a stored one. */
export function parseSsoInput(input: SsoInput, hadSecret: boolean): SsoFields {
  const clientId = input.clientId.trim();
  if (!clientId || clientId.length > 500)
    refuse('clientId', 'Enter the client ID the provider gave (at most 500 characters)');
  if (!input.clientSecret && !hadSecret) refuse('clientSecret', 'Enter the client secret the provider gave');
  if (input.clientSecret.length > 2000)
    refuse('clientSecret', 'The client secret is longer than 2000 characters');
  const claim = input.roleClaim.trim();
  if (claim && !CLAIM.test(claim))
    refuse('roleClaim', `"${claim}" is not a claim name (letters, digits, _ : . / -)`);
  const map = roleMap(input.roleMap);
  if (!claim && Object.keys(map).length > 0)
    refuse('roleClaim', 'Name the claim whose values the role mappings read');
  return {
    issuerUrl: issuerUrl(input.issuerUrl),
    clientId,
    allowedDomains: domainList(input.allowedDomains),
    defaultRole: ssoRole('defaultRole', input.defaultRole),
    roleClaim: claim || null,
    roleMap: map,
  };
}

/** The role a first-time user gets: the strongest their claim maps to, else the default. */
export function roleFor(
  fields: { default_role: SsoRole; role_claim: string | null; role_map: Record<string, SsoRole> },
  claims: Record<string, unknown>,
): SsoRole {
  if (!fields.role_claim) return fields.default_role;
  const raw = claims[fields.role_claim];
  const values = (Array.isArray(raw) ? raw : [raw]).filter((v): v is string => typeof v === 'string');
  const mapped = values.filter((v) => Object.hasOwn(fields.role_map, v)).map((v) => fields.role_map[v]!);
  return SSO_ROLES.find((r) => mapped.includes(r)) ?? fields.default_role;
}

export const SSO_ROLE_LABELS = SSO_ROLES.map((r) => ({ role: r, label: ROLE_LABELS[r] }));
