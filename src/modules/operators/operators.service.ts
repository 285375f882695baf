import { Type } from 'typebox';
import type { Db } from '../../platform/db/db.js';
import { AppError, ConflictError, NotFoundError, ValidationError } from '../../platform/errors.js';
import { uuidv7 } from '../../platform/ids.js';
import { EMAIL_MAX_LENGTH } from '../../platform/limits.js';
import { WrongMasterKeyError, type KeyVault } from '../../platform/proof/key-vault.js';
import { newTotpSecret, totpStep, totpUri } from '../../platform/totp.js';
import { assertStorable, compileBodyValidator } from '../../platform/validation.js';
import { generatePassword, hashPassword, verifyPassword } from '../users/password.js';
import { MIN_PASSWORD_LENGTH } from '../users/users.service.js';
import * as repo from './operators.repository.js';

// The instance's operators (decisions 21): people of the service itself, not of any account. They
// sign in at /admin with a password and, always, a TOTP code; `certsvc admin create` makes them.

export interface OperatorView {
  id: string;
  email: string;
  /** Whether two-factor sign-in is set up (confirmed with a code); until then, set-up comes first. */
  twoFactor: boolean;
  createdAt: string;
}

const validEmail = compileBodyValidator(Type.String({ format: 'email', maxLength: EMAIL_MAX_LENGTH }));
export const TOTP_ISSUER = 'certsvc admin';

let dummyHash: Promise<string> | undefined;
const DUMMY_HASH = () => (dummyHash ??= hashPassword('certsvc-no-such-operator'));

export class TwoFactorUnavailableError extends AppError {
  constructor() {
    super(
      'service_unavailable',
      'Two-factor sign-in needs SIGNING_KEYS_SECRET (the operators’ secrets are sealed under it): set it and restart',
    );
  }
}

function view(row: repo.OperatorRow): OperatorView {
  return {
    id: row.id,
    email: row.email,
    twoFactor: row.totp_enabled_at !== null,
    createdAt: row.created_at.toISOString(),
  };
}

// The sealed secret's associated data: a secret moved to another operator's row does not open.
const aad = (id: string) => `operator-totp:${id}`;

// 503: the secret is stored but SIGNING_KEYS_SECRET does not open it (it was changed).
export class OperatorSecretUnreadableError extends AppError {
  constructor() {
    super(
      'service_unavailable',
      'SIGNING_KEYS_SECRET does not open this operator’s two-factor secret (was it changed?): restore the old secret, or reset the operator’s two-factor (docs/operations.md)',
    );
  }
}

export function createOperatorsService(deps: { db: Db; vault?: KeyVault; now: () => Date }) {
  const { db } = deps;
  function vault(): KeyVault {
    if (!deps.vault) throw new TwoFactorUnavailableError();
    return deps.vault;
  }
  function openSecret(sealed: Buffer, id: string): string {
    try {
      return vault().open(sealed, aad(id)).toString('utf8');
    } catch (err) {
      if (err instanceof WrongMasterKeyError) throw new OperatorSecretUnreadableError();
      throw err;
    }
  }
  async function operator(id: string): Promise<repo.OperatorRow> {
    const row = await repo.findOperator(db, id);
    if (!row) throw new NotFoundError('Operator');
    return row;
  }

  return {
    async create(input: { email: string; password?: string }) {
      const email = input.email.trim().toLowerCase();
      if (!validEmail(email)) {
        throw new ValidationError(
          [{ path: ['email'], message: 'is not a valid email address' }],
          `"${input.email}" is not a valid email address`,
        );
      }
      if (input.password !== undefined && [...input.password].length < MIN_PASSWORD_LENGTH) {
        throw new ValidationError(
          [{ path: ['password'], message: `must be at least ${MIN_PASSWORD_LENGTH} characters` }],
          `The password must be at least ${MIN_PASSWORD_LENGTH} characters`,
        );
      }
      const password = input.password ?? generatePassword();
      const row = await repo.insertOperator(db, {
        id: uuidv7(),
        email,
        passwordHash: await hashPassword(password),
      });
      if (!row) throw new ConflictError(`An operator with the email ${email} already exists`);
      return { operator: view(row), generatedPassword: input.password === undefined ? password : undefined };
    },

    // The operator whose email and password these are, or undefined (unknown email or wrong password
    // alike, and as slow).
    async authenticate(email: string, password: string): Promise<OperatorView | undefined> {
      assertStorable({ email });
      const row = await repo.findOperatorByEmail(db, email.trim().toLowerCase());
      const ok = await verifyPassword(password, row?.password_hash ?? (await DUMMY_HASH()));
      return row && ok ? view(row) : undefined;
    },

    async get(id: string): Promise<OperatorView | undefined> {
      const row = await repo.findOperator(db, id);
      return row ? view(row) : undefined;
    },

    // The secret to set up (as text and as an otpauth:// link): made and sealed at the first call,
    // the same one until a code confirms it.
    async twoFactorSetup(id: string): Promise<{ secret: string; uri: string }> {
      const row = await operator(id);
      if (row.totp_enabled_at) throw new ConflictError('Two-factor sign-in is already set up');
      let secret: string;
      if (row.totp_secret) {
        secret = openSecret(row.totp_secret, id);
      } else {
        secret = newTotpSecret();
        await repo.setPendingSecret(db, id, vault().seal(Buffer.from(secret, 'utf8'), aad(id)));
      }
      return { secret, uri: totpUri(secret, TOTP_ISSUER, row.email) };
    },

    // A code of the operator's authenticator: at set-up it turns two-factor on, afterwards it
    // completes a sign-in. Each time step works once (a code seen by someone else is spent).
    async checkCode(id: string, code: string): Promise<boolean> {
      const row = await operator(id);
      if (!row.totp_secret) return false;
      const now = deps.now();
      const secret = openSecret(row.totp_secret, id);
      const step = totpStep(secret, code, now);
      if (step === undefined) return false;
      return repo.useTotpStep(db, { id, step, enable: row.totp_enabled_at === null, now });
    },
  };
}

export type OperatorsService = ReturnType<typeof createOperatorsService>;
