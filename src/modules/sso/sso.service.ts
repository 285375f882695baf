import type { Db } from '../../platform/db/db.js';
import { ForbiddenError, ValidationError } from '../../platform/errors.js';
import { uuidv7 } from '../../platform/ids.js';
import type { Doer, Origin } from '../../platform/principal.js';
import type { KeyVault } from '../../platform/proof/key-vault.js';
import { recordAudit } from '../audit/audit-log.js';
import type { Role } from '../shared/roles.js';
import { generatePassword, hashPassword } from '../users/password.js';
import { findUserByEmail, insertUser, stampSignIn } from '../users/users.repository.js';
import {
  authorizationRequest,
  discover,
  exchangeCode,
  refusalReason,
  unreachable,
  type Claims,
  type Pending,
} from './oidc.js';
import { parseSsoInput, roleFor, type SsoFields, type SsoInput } from './sso-settings.js';
import * as repo from './sso.repository.js';

// Single sign-on with OpenID Connect, per account (issue 29, decisions 21): its settings (the client
// secret sealed under SIGNING_KEYS_SECRET, never shown again) and the sign-in itself, which finds the
// account's user by email or provisions a first-time one, each recorded in the audit trail.

/** How long a started sign-in may take before its callback is refused. */
export const SSO_PENDING_MS = 10 * 60 * 1000;

export interface SsoView extends SsoFields {
  clientSecretSet: true;
  passwordSignIn: boolean;
  updatedAt: string;
}

export interface SsoUser {
  id: string;
  email: string;
  accountId: string;
  role: Role;
  joined: boolean;
}

/** A sign-in refused: the page answers `status` with the message; nobody is signed in. */
export class SsoRefusal extends Error {
  constructor(
    readonly status: 400 | 403 | 404 | 502,
    message: string,
  ) {
    super(message);
  }
}

const secretAad = (accountId: string) => `sso:${accountId}`;

function view(row: repo.SsoRow): SsoView {
  return {
    issuerUrl: row.issuer_url,
    clientId: row.client_id,
    allowedDomains: row.allowed_domains,
    defaultRole: row.default_role,
    roleClaim: row.role_claim,
    roleMap: row.role_map,
    clientSecretSet: true,
    passwordSignIn: row.password_sign_in,
    updatedAt: row.updated_at.toISOString(),
  };
}

// The names of the fields a save changes (the secret's name only, never its value).
function changedFields(before: repo.SsoRow | undefined, after: repo.SsoRow, secretTyped: boolean): string[] {
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const pairs: [string, unknown, unknown][] = [
    ['issuerUrl', before?.issuer_url, after.issuer_url],
    ['clientId', before?.client_id, after.client_id],
    ['allowedDomains', before?.allowed_domains, after.allowed_domains],
    ['defaultRole', before?.default_role, after.default_role],
    ['roleClaim', before?.role_claim, after.role_claim],
    ['roleMap', before?.role_map, after.role_map],
    ['passwordSignIn', before?.password_sign_in, after.password_sign_in],
  ];
  const names = pairs.filter(([, a, b]) => !before || !same(a, b)).map(([name]) => name);
  return secretTyped ? [...names.slice(0, 2), 'clientSecret', ...names.slice(2)] : names;
}

export function createSsoService(deps: { db: Db; vault?: KeyVault; now: () => Date; publicBaseUrl: string }) {
  const { db } = deps;
  const redirectUri = `${deps.publicBaseUrl}/dashboard/sso/callback`;
  // Token times are judged by the service's clock, however far it is from the system's.
  const skew = () => Math.round((deps.now().getTime() - Date.now()) / 1000);

  function vault(): KeyVault {
    if (!deps.vault)
      throw new ValidationError([], 'Single sign-on needs SIGNING_KEYS_SECRET set on the server');
    return deps.vault;
  }
  const client = (row: repo.SsoRow) => ({
    issuerUrl: row.issuer_url,
    clientId: row.client_id,
    clientSecret: vault().open(row.client_secret, secretAad(row.account_id)).toString('utf8'),
  });

  async function ssoOf(accountId: string): Promise<repo.SsoRow> {
    const row = await repo.findSso(db, accountId);
    if (!row) throw new SsoRefusal(404, 'This organisation does not sign in with single sign-on.');
    return row;
  }

  return {
    /** The redirect URI to register at the provider. */
    redirectUri,

    async settings(accountId: string): Promise<SsoView | undefined> {
      const row = await repo.findSso(db, accountId);
      return row && view(row);
    },

    /** Saves the settings once the issuer answers as an OpenID Provider; records `sso.updated`. */
    async save(doer: Doer, accountId: string, input: SsoInput): Promise<SsoView> {
      const before = await repo.findSso(db, accountId);
      const fields = parseSsoInput(input, before !== undefined);
      const secret = input.clientSecret || (before ? client(before).clientSecret : '');
      try {
        await discover({ issuerUrl: fields.issuerUrl, clientId: fields.clientId, clientSecret: secret });
      } catch (err) {
        const message = `The issuer URL did not answer as an OpenID Provider (${fields.issuerUrl}/.well-known/openid-configuration): ${err instanceof Error ? err.message : String(err)}`;
        throw new ValidationError([{ path: ['issuerUrl'], message }], message);
      }
      const row: repo.SsoRow = {
        account_id: accountId,
        issuer_url: fields.issuerUrl,
        client_id: fields.clientId,
        client_secret: input.clientSecret
          ? vault().seal(Buffer.from(input.clientSecret, 'utf8'), secretAad(accountId))
          : before!.client_secret,
        allowed_domains: fields.allowedDomains,
        default_role: fields.defaultRole,
        role_claim: fields.roleClaim,
        role_map: fields.roleMap,
        password_sign_in: input.passwordSignIn ?? before?.password_sign_in ?? true,
        updated_at: deps.now(),
      };
      await db.transaction(async (tx) => {
        await repo.upsertSso(tx, row);
        const taken = await repo.replaceDomains(tx, accountId, row.allowed_domains);
        if (taken) {
          const message = `The domain ${taken} already signs in through another organisation on this service`;
          throw new ValidationError([{ path: ['allowedDomains'], message }], message);
        }
        const fieldsChanged = changedFields(before, row, input.clientSecret !== '');
        await recordAudit(
          tx,
          accountId,
          doer,
          [
            {
              action: 'sso.updated',
              target: { type: 'account', id: accountId },
              changes: { fields: fieldsChanged },
            },
          ],
          deps.now(),
        );
      });
      return view(row);
    },

    /**
     * Turns single sign-on off (its settings and domains deleted; `sso.updated` with removed). With
     * password sign-in off, that would turn it back on for everyone: an owner's decision only.
     */
    async remove(doer: Doer, accountId: string, byOwner: boolean): Promise<void> {
      await removeSso(deps, doer, accountId, byOwner);
    },

    /** The account whose provider signs in this email's domain, if any. */
    async accountForEmail(emailOrDomain: string): Promise<string | undefined> {
      const domain = emailOrDomain.trim().toLowerCase().split('@').pop() ?? '';
      if (!domain || domain.length > 253 || domain.includes('\0')) return undefined;
      return repo.findAccountByDomain(db, domain);
    },

    /** Where to send the browser to sign in, and what its callback must match. */
    async start(accountId: string, loginHint?: string): Promise<{ url: URL; pending: Pending }> {
      const row = await ssoOf(accountId);
      let config;
      try {
        config = await discover(client(row), skew());
      } catch (err) {
        throw new SsoRefusal(
          unreachable(err) ? 502 : 400,
          `Single sign-on cannot start: ${refusalReason(err)}.`,
        );
      }
      return authorizationRequest(config, {
        accountId,
        redirectUri,
        expiresAt: deps.now().getTime() + SSO_PENDING_MS,
        loginHint: loginHint && loginHint.length <= 254 ? loginHint : undefined,
      });
    },

    /** Completes the sign-in `pending` started with the callback's query string; throws SsoRefusal. */
    async finish(pending: Pending, search: string, origin: Origin): Promise<SsoUser> {
      if (pending.expiresAt < deps.now().getTime()) {
        throw new SsoRefusal(400, 'This sign-in took too long and has expired. Start it again.');
      }
      const row = await ssoOf(pending.accountId);
      let claims: Claims;
      try {
        const config = await discover(client(row), skew());
        claims = await exchangeCode(config, new URL(`${redirectUri}${search}`), pending);
      } catch (err) {
        throw new SsoRefusal(unreachable(err) ? 502 : 400, `Sign-in refused: ${refusalReason(err)}.`);
      }
      const email = verifiedEmail(row, claims);
      return signIn(deps, row, email, claims, origin);
    },

    /** False when the account turned password sign-in off and the user is not one of its owners. */
    async passwordSignInAllowed(accountId: string, role: Role): Promise<boolean> {
      if (role === 'owner') return true;
      const row = await repo.findSso(db, accountId);
      return !row || row.password_sign_in;
    },
  };
}

// Deletes the settings and domains in one transaction with their `sso.updated` event.
async function removeSso(
  deps: { db: Db; now: () => Date },
  doer: Doer,
  accountId: string,
  byOwner: boolean,
): Promise<void> {
  const { db } = deps;
  await db.transaction(async (tx) => {
    const row = await repo.findSso(tx, accountId);
    if (!row) return;
    if (!row.password_sign_in && !byOwner) {
      throw new ForbiddenError(
        'Password sign-in is off for this organisation: only an owner may turn single sign-on off.',
      );
    }
    await repo.deleteSso(tx, accountId);
    const changes = { removed: true };
    await recordAudit(
      tx,
      accountId,
      doer,
      [{ action: 'sso.updated', target: { type: 'account', id: accountId }, changes }],
      deps.now(),
    );
  });
}

// The provider's verified email in one of the account's domains; otherwise a refusal.
function verifiedEmail(row: repo.SsoRow, claims: Claims): string {
  const email = typeof claims.email === 'string' ? claims.email.trim().toLowerCase() : '';
  if (!email) throw new SsoRefusal(403, 'Sign-in refused: the provider did not give an email address.');
  if (claims.email_verified !== true && claims.email_verified !== 'true') {
    throw new SsoRefusal(403, `Sign-in refused: the provider has not verified the address ${email}.`);
  }
  const domain = email.split('@').pop()!;
  if (!row.allowed_domains.includes(domain)) {
    throw new SsoRefusal(
      403,
      `Sign-in refused: ${email} is not in the email domains this organisation allows (${row.allowed_domains.join(', ')}).`,
    );
  }
  return email;
}

// The account's user of this email, or a first-time one with the role the settings give; both
// recorded (`user.joined`, `user.signed_in`) in the transaction that finds or makes the user.
async function signIn(
  deps: { db: Db; now: () => Date },
  row: repo.SsoRow,
  email: string,
  claims: Claims,
  origin: Origin,
): Promise<SsoUser> {
  const { db } = deps;
  const accountId = row.account_id;
  return db.transaction(async (tx) => {
    const found = await findUserByEmail(tx, email);
    const role = roleFor(row, claims);
    // A first-time user gets a password nobody knows: they sign in through the provider.
    const passwordHash = found ? '' : await hashPassword(generatePassword());
    const user = found ?? (await insertUser(tx, { id: uuidv7(), accountId, email, passwordHash, role }));
    // Made meanwhile by another sign-in (the insert met the unique email): this one starts again.
    if (!user)
      throw new SsoRefusal(400, 'This sign-in crossed another one for the same person. Start it again.');
    const joined = !found;
    if (user.account_id !== accountId) {
      throw new SsoRefusal(
        403,
        `Sign-in refused: ${email} is a user of another organisation on this service. Sign in there.`,
      );
    }
    const now = deps.now();
    await stampSignIn(tx, user.id, now);
    const doer: Doer = { actor: { type: 'user', id: user.id, label: email }, origin };
    const target = { type: 'user', id: user.id };
    await recordAudit(
      tx,
      accountId,
      doer,
      [
        ...(joined
          ? [{ action: 'user.joined' as const, target, changes: { role: user.role, method: 'sso' } }]
          : []),
        { action: 'user.signed_in', target, changes: { method: 'sso' } },
      ],
      now,
    );
    return { id: user.id, email, accountId, role: user.role, joined };
  });
}

export type SsoService = ReturnType<typeof createSsoService>;
