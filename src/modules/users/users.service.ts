import type { Db } from '../../platform/db/db.js';
import { ConflictError, NotFoundError, ValidationError } from '../../platform/errors.js';
import { uuidv7 } from '../../platform/ids.js';
import { assertStorable, compileBodyValidator } from '../../platform/validation.js';
import { Type } from 'typebox';
import { findAccount } from '../accounts/accounts.repository.js';
import { generatePassword, hashPassword, verifyPassword } from './password.js';
import { findUserByEmail, findUserById, insertUser, type UserRow } from './users.repository.js';
import { isRole, ROLES, type Role } from '../shared/roles.js';
import { EMAIL_MAX_LENGTH } from '../../platform/limits.js';
import { SYSTEM, type Doer } from '../../platform/principal.js';
import { recordAudit } from '../audit/audit-log.js';

export interface UserView {
  id: string;
  accountId: string;
  email: string;
  role: Role;
  createdAt: string;
  twoFactorEnabledAt: string | null;
}

/** A user as a dashboard session reads them: with their account's two-factor requirement. */
export interface SessionUser extends UserView {
  /** The account requires two-factor sign-in of everyone (the owner's setting). */
  accountRequiresTwoFactor: boolean;
}

const validEmail = compileBodyValidator(Type.String({ format: 'email', maxLength: EMAIL_MAX_LENGTH }));
export const MIN_PASSWORD_LENGTH = 12;

// An email as users are stored under: trimmed, lower-cased, and a valid address.
export function userEmail(input: string): string {
  const email = input.trim().toLowerCase();
  if (!validEmail(email)) {
    throw new ValidationError(
      [{ path: ['email'], message: 'is not a valid email address' }],
      `"${input}" is not a valid email address`,
    );
  }
  return email;
}

export function assertNewPassword(password: string): void {
  if ([...password].length < MIN_PASSWORD_LENGTH) {
    throw new ValidationError(
      [{ path: ['password'], message: `must be at least ${MIN_PASSWORD_LENGTH} characters` }],
      `The password must be at least ${MIN_PASSWORD_LENGTH} characters`,
    );
  }
}

export function userRole(input: string | undefined): Role {
  if (input === undefined) return 'owner';
  if (!isRole(input)) {
    throw new ValidationError(
      [{ path: ['role'], message: `must be one of ${ROLES.join(', ')}` }],
      `The role must be one of ${ROLES.join(', ')}, not "${input}"`,
    );
  }
  return input;
}

// Compared against when the email is unknown, so that an unknown email costs as long as a wrong password.
let dummyHash: Promise<string> | undefined;
const DUMMY_HASH = () => (dummyHash ??= hashPassword('certsvc-no-such-user'));

function userView(row: UserRow): UserView {
  return {
    id: row.id,
    accountId: row.account_id,
    email: row.email,
    role: row.role,
    createdAt: row.created_at.toISOString(),
    twoFactorEnabledAt: row.two_factor_enabled_at?.toISOString() ?? null,
  };
}

// Dashboard users (sign-in comes with the dashboard). Emails are unique across accounts, case-insensitively.
export function createUsersService(deps: { db: Db; now: () => Date }) {
  return {
    // A user made directly (the CLI's `user create`), with the role given (owner by default).
    async create(
      input: { accountId: string; email: string; password?: string; role?: string },
      doer: Doer = SYSTEM,
    ) {
      const email = userEmail(input.email);
      const role = userRole(input.role);
      if (input.password !== undefined) assertNewPassword(input.password);
      if (!(await findAccount(deps.db, input.accountId))) throw new NotFoundError('Account');
      const password = input.password ?? generatePassword();
      const passwordHash = await hashPassword(password);
      const row = await deps.db.transaction(async (tx) => {
        const inserted = await insertUser(tx, {
          id: uuidv7(),
          accountId: input.accountId,
          email,
          passwordHash,
          role,
        });
        if (!inserted) throw new ConflictError(`A user with the email ${email} already exists`);
        await recordAudit(
          tx,
          input.accountId,
          doer,
          [{ action: 'user.joined', target: { type: 'user', id: inserted.id }, changes: { role } }],
          deps.now(),
        );
        return inserted;
      });
      const user = userView(row);
      return { user, generatedPassword: input.password === undefined ? password : undefined };
    },

    // The user whose email and password these are, or undefined (unknown email or wrong password alike).
    async authenticate(email: string, password: string): Promise<UserView | undefined> {
      assertStorable({ email });
      const row = await findUserByEmail(deps.db, email.trim().toLowerCase());
      const ok = await verifyPassword(password, row?.password_hash ?? (await DUMMY_HASH()));
      return row && ok ? userView(row) : undefined;
    },

    // The user of an email address (lower-cased), for recording a refused sign-in in their account.
    async findByEmail(email: string): Promise<UserView | undefined> {
      const row = await findUserByEmail(deps.db, email.trim().toLowerCase());
      return row ? userView(row) : undefined;
    },

    async get(id: string): Promise<UserView | undefined> {
      const row = await findUserById(deps.db, id);
      return row ? userView(row) : undefined;
    },

    // The same read as get (one query), with what the session needs of the account.
    async getForSession(id: string): Promise<SessionUser | undefined> {
      const row = await findUserById(deps.db, id);
      return row ? { ...userView(row), accountRequiresTwoFactor: row.require_two_factor } : undefined;
    },
  };
}

export type UsersService = ReturnType<typeof createUsersService>;
