import { ConflictError } from '../../platform/errors.js';
import type { Db } from '../../platform/db/db.js';
import { AppError, ValidationError } from '../../platform/errors.js';
import type { Doer, Origin } from '../../platform/principal.js';
import { WrongMasterKeyError, type KeyVault } from '../../platform/proof/key-vault.js';
import { newRecoveryCodes, newTotpSecret, recoveryCodeHash, totpStep, totpUri } from '../../platform/totp.js';
import { recordAudit } from '../audit/audit-log.js';
import { hashPassword, verifyPassword } from './password.js';
import * as repo from './security.repository.js';
import { findUserById, setPasswordHash, stampSignIn } from './users.repository.js';
import { endSessionsOf } from './team.repository.js';
import { MIN_PASSWORD_LENGTH, type UserView } from './users.service.js';

// Each user's own sign-in security (issue 29): their password, two-factor sign-in (TOTP, RFC 6238,
// with ten single-use recovery codes), the account's "require two-factor for everyone", and the
// audit events of signing in. The TOTP secret is sealed by the key vault (SIGNING_KEYS_SECRET), with
// the user's id as associated data, so that a secret copied to another user's row does not open.

export const TOTP_ISSUER = 'certsvc';

type Who = Pick<UserView, 'id' | 'email' | 'accountId'>;

// 503: without SIGNING_KEYS_SECRET this process cannot seal or open a TOTP secret.
export class TwoFactorUnavailableError extends AppError {
  constructor() {
    super(
      'service_unavailable',
      'Two-factor sign-in needs SIGNING_KEYS_SECRET on this server (docs/operations.md): ask its operator.',
    );
  }
}

// 503: the secret is stored but this server's SIGNING_KEYS_SECRET does not open it (the secret was
// changed without the old one): recovery codes still work; an admin can turn two-factor off.
export class TwoFactorSecretUnreadableError extends AppError {
  constructor() {
    super(
      'service_unavailable',
      'This server cannot read your two-factor secret (its SIGNING_KEYS_SECRET was changed). Sign in with one of your recovery codes, or ask an admin of your account to turn your two-factor sign-in off.',
    );
  }
}

function codeRefused(message = 'The code is not right. Enter the current code of your app.') {
  return new ValidationError([{ path: ['code'], message }], message);
}

function passwordRefused(field: string, message: string) {
  return new ValidationError([{ path: [field], message }], message);
}

/** The doer of a user's own change, as the audit trail names it. */
export function userDoer(user: Pick<UserView, 'id' | 'email'>, origin?: Origin): Doer {
  return { actor: { type: 'user', id: user.id, label: user.email }, origin };
}

type SecurityDeps = { db: Db; vault?: KeyVault; now: () => Date };

async function passwordMatches(db: Db, userId: string, password: string): Promise<boolean> {
  const row = await findUserById(db, userId);
  return row !== undefined && (await verifyPassword(password, row.password_hash));
}

function twoFactor(deps: SecurityDeps) {
  const aad = (userId: string) => `two-factor:${userId}`;
  const vault = () => {
    if (!deps.vault) throw new TwoFactorUnavailableError();
    return deps.vault;
  };
  const open = (sealed: Buffer, userId: string) => vault().open(sealed, aad(userId)).toString('utf8');
  // The secret, or undefined when this server's master key does not open it.
  const opened = (sealed: Buffer, userId: string) => {
    try {
      return open(sealed, userId);
    } catch (err) {
      if (err instanceof WrongMasterKeyError) return undefined;
      throw err;
    }
  };
  const setup = (secret: string, user: Who) => ({ secret, uri: totpUri(secret, TOTP_ISSUER, user.email) });

  /**
   * Takes a sign-in code: a TOTP code of a step later than the last one taken, or one of the
   * unused recovery codes. Each works once. 'totp' or 'recovery' when taken, undefined otherwise.
   */
  async function takeCode(userId: string, code: string): Promise<'totp' | 'recovery' | undefined> {
    const row = await repo.readSecrets(deps.db, userId);
    if (!row?.two_factor_secret) return undefined;
    const secret = opened(row.two_factor_secret, userId);
    const step = secret === undefined ? undefined : totpStep(secret, code, deps.now());
    if (step !== undefined) return (await repo.takeStep(deps.db, userId, step)) ? 'totp' : undefined;
    if (
      /^[\sa-z0-9-]{10,20}$/i.test(code) &&
      (await repo.takeRecoveryCode(deps.db, userId, recoveryCodeHash(code)))
    )
      return 'recovery';
    if (secret === undefined) throw new TwoFactorSecretUnreadableError();
    return undefined;
  }

  // Two-factor already on is changed only by turning it off first (password and a code): a session
  // alone must not replace the secret and the recovery codes.
  async function refuseWhenOn(userId: string): Promise<void> {
    const row = await repo.readSecrets(deps.db, userId);
    if (row?.two_factor_secret) {
      throw new ConflictError(
        'Two-factor sign-in is on: turn it off first (password and a code) to set up another.',
      );
    }
  }

  return {
    /** A new secret to set up (replacing one not yet confirmed), shown as text and as a link. */
    async startTwoFactor(user: Who): Promise<{ secret: string; uri: string }> {
      await refuseWhenOn(user.id);
      const secret = newTotpSecret();
      await repo.setPendingSecret(deps.db, user.id, vault().seal(Buffer.from(secret), aad(user.id)));
      return setup(secret, user);
    },

    /** The secret being set up, until a code confirms it. */
    async pendingTwoFactor(user: Who): Promise<{ secret: string; uri: string } | undefined> {
      const row = await repo.readSecrets(deps.db, user.id);
      const secret = row?.two_factor_pending_secret && opened(row.two_factor_pending_secret, user.id);
      return secret ? setup(secret, user) : undefined;
    },

    /** Turns two-factor on when `code` is right for the pending secret: the ten recovery codes. */
    async confirmTwoFactor(doer: Doer, user: Who, code: string): Promise<string[]> {
      await refuseWhenOn(user.id);
      const row = await repo.readSecrets(deps.db, user.id);
      const pending = row?.two_factor_pending_secret;
      if (!pending) throw codeRefused('Start again: there is no two-factor set-up in progress.');
      const now = deps.now();
      const secret = opened(pending, user.id);
      if (secret === undefined)
        throw codeRefused('Start again: this server cannot read the set-up in progress.');
      const step = totpStep(secret, code, now);
      if (step === undefined) throw codeRefused();
      const codes = newRecoveryCodes();
      const done = await deps.db.transaction(async (tx) => {
        const enabled = await repo.enable(tx, {
          userId: user.id,
          pending,
          step,
          codeHashes: codes.map(recoveryCodeHash),
          now,
        });
        if (enabled) {
          await recordAudit(
            tx,
            user.accountId,
            doer,
            [
              {
                action: 'user.two_factor_enabled',
                target: { type: 'user', id: user.id },
                changes: { enabled: true },
              },
            ],
            now,
          );
        }
        return enabled;
      });
      if (!done) throw codeRefused('Start again: the two-factor set-up changed in another window.');
      return codes;
    },

    /** Turns two-factor off: needs the password and a code (of the app, or a recovery code). */
    async disableTwoFactor(doer: Doer, user: Who, input: { password: string; code: string }): Promise<void> {
      if (!(await passwordMatches(deps.db, user.id, input.password))) {
        throw passwordRefused('password', 'The password is not right.');
      }
      if (!(await takeCode(user.id, input.code))) throw codeRefused();
      await deps.db.transaction(async (tx) => {
        await repo.disable(tx, user.id);
        await recordAudit(
          tx,
          user.accountId,
          doer,
          [
            {
              action: 'user.two_factor_disabled',
              target: { type: 'user', id: user.id },
              changes: { enabled: false },
            },
          ],
          deps.now(),
        );
      });
    },

    takeCode,

    recoveryCodesLeft: (userId: string) => repo.countRecoveryCodes(deps.db, userId),
  };
}

// The password, the account's requirement and the events of signing in.
function passwordAndSignIn(deps: SecurityDeps) {
  return {
    /** A new password; the user's dashboard sessions all end (the caller starts a new one). */
    async changePassword(
      doer: Doer,
      user: Who,
      input: { current: string; password: string; again: string },
    ): Promise<void> {
      if (!(await passwordMatches(deps.db, user.id, input.current))) {
        throw passwordRefused('current', 'The current password is not right.');
      }
      if ([...input.password].length < MIN_PASSWORD_LENGTH) {
        throw passwordRefused(
          'password',
          `The new password must be at least ${MIN_PASSWORD_LENGTH} characters.`,
        );
      }
      if (input.password !== input.again) throw passwordRefused('again', 'The two new passwords differ.');
      const hash = await hashPassword(input.password);
      await deps.db.transaction(async (tx) => {
        await setPasswordHash(tx, user.id, hash);
        await endSessionsOf(tx, user.id);
        await recordAudit(
          tx,
          user.accountId,
          doer,
          [{ action: 'user.password_changed', target: { type: 'user', id: user.id } }],
          deps.now(),
        );
      });
    },

    /** The owner's "require two-factor for everyone" of the account. */
    async setRequireTwoFactor(doer: Doer, accountId: string, on: boolean): Promise<void> {
      await deps.db.transaction(async (tx) => {
        await repo.setRequireTwoFactor(tx, accountId, on);
        await recordAudit(
          tx,
          accountId,
          doer,
          [
            {
              action: 'account.updated',
              target: { type: 'account', id: accountId },
              changes: { requireTwoFactor: on },
            },
          ],
          deps.now(),
        );
      });
    },

    /** A complete sign-in (password, and code when two-factor is on). */
    async recordSignedIn(user: Who, origin: Origin, method: 'password' | 'totp' | 'recovery'): Promise<void> {
      const now = deps.now();
      await deps.db.transaction(async (tx) => {
        await stampSignIn(tx, user.id, now);
        await recordAudit(
          tx,
          user.accountId,
          userDoer(user, origin),
          [{ action: 'user.signed_in', target: { type: 'user', id: user.id }, changes: { method } }],
          now,
        );
      });
    },

    /**
     * A refused sign-in of a known user, recorded in their account only (an unknown address has no
     * account to record it in). The actor is nobody known: whoever typed it may not be the user.
     */
    async recordSignInFailed(user: Who, origin: Origin, reason: 'password' | 'code'): Promise<void> {
      const doer: Doer = { actor: { type: 'user', id: null, label: null }, origin };
      await recordAudit(
        deps.db,
        user.accountId,
        doer,
        [{ action: 'user.sign_in_failed', target: { type: 'user', id: user.id }, changes: { reason } }],
        deps.now(),
      );
    },
  };
}

export function createSecurityService(deps: SecurityDeps) {
  return { ...twoFactor(deps), ...passwordAndSignIn(deps) };
}

export type SecurityService = ReturnType<typeof createSecurityService>;
