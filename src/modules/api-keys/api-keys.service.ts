import type { Db } from '../../platform/db/db.js';
import { NotFoundError, ValidationError } from '../../platform/errors.js';
import { uuidv7 } from '../../platform/ids.js';
import { SYSTEM, type Doer, type Principal } from '../../platform/principal.js';
import { recordAudit } from '../audit/audit-log.js';
import { rowView } from '../../platform/row-view.js';
import { plainTextProblem } from '../../platform/text.js';
import { findAccount } from '../accounts/accounts.repository.js';
import * as repo from './api-keys.repository.js';
import {
  displayPrefix,
  generateKey,
  hashKey,
  isWellFormedKey,
  DEFAULT_SCOPES,
  SCOPES,
  type Scope,
} from '../shared/key-format.js';

export interface ApiKeyView {
  id: string;
  accountId: string;
  name: string | null;
  prefix: string;
  scopes: string[];
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  /** Who made the key: a user's email, `cli`, or null (made by the service itself). */
  createdBy: string | null;
}

function view(row: repo.ApiKeyRow): ApiKeyView {
  const shown = rowView(row, [
    'id',
    'account_id',
    'name',
    'prefix',
    'scopes',
    'created_at',
    'last_used_at',
    'revoked_at',
  ]);
  return { ...shown, createdBy: row.created_by_label };
}

// No list at all gives the default scopes (every scope but `audit:read`, which is asked for by
// name); a list must name at least one scope and only known ones (an empty entry, as in "" or
// "a,,", is an unknown scope rather than a silent default).
export function parseScopes(input: string[] | undefined): Scope[] {
  if (input === undefined) return [...DEFAULT_SCOPES];
  if (input.length === 0 || input.every((s) => s === '')) {
    throw new ValidationError(
      [{ path: ['scopes'], message: `must name at least one scope: ${SCOPES.join(', ')}` }],
      `--scopes must name at least one scope (known: ${SCOPES.join(', ')})`,
    );
  }
  const unknown = input.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length > 0) {
    throw new ValidationError(
      [
        {
          path: ['scopes'],
          message: `unknown scope ${unknown.map((u) => u || '(empty)').join(', ')}; known: ${SCOPES.join(', ')}`,
        },
      ],
      `Unknown scope: ${unknown.map((u) => u || '(empty)').join(', ')} (known: ${SCOPES.join(', ')})`,
    );
  }
  return [...new Set(input)] as Scope[];
}

// A key's name is what people read in the key list: trimmed, at most 100 plain characters. No name
// (or only blanks) is no name.
export function keyName(input: string | undefined): string | null {
  const name = input?.trim() ?? '';
  if (name === '') return null;
  const problem = plainTextProblem(name, 100);
  if (problem) throw new ValidationError([{ path: ['name'], message: problem }], `The name ${problem}`);
  return name;
}

export function createApiKeysService(deps: { db: Db; now: () => Date }) {
  const { db } = deps;
  return {
    // Who made it (`doer`) is stored with the key and named by its `key.created` event.
    async create(accountId: string, opts: { name?: string; scopes?: string[] } = {}, doer: Doer = SYSTEM) {
      const name = keyName(opts.name);
      const scopes = parseScopes(opts.scopes);
      if (!(await findAccount(db, accountId))) throw new NotFoundError('Account');
      const key = generateKey();
      const { actor } = doer;
      const row = await db.transaction(async (tx) => {
        const inserted = await repo.insertKey(tx, {
          id: uuidv7(),
          accountId,
          name,
          prefix: displayPrefix(key),
          hash: hashKey(key),
          scopes,
          createdBy: {
            userId: actor.type === 'user' ? actor.id : null,
            label: actor.type === 'user' ? actor.label : actor.type === 'cli' ? 'cli' : null,
          },
        });
        await recordAudit(
          tx,
          accountId,
          doer,
          [
            {
              action: 'key.created',
              target: { type: 'api_key', id: inserted.id },
              changes: { name, scopes },
            },
          ],
          deps.now(),
        );
        return inserted;
      });
      return { ...view(row), key };
    },

    async list(accountId: string): Promise<ApiKeyView[]> {
      if (!(await findAccount(db, accountId))) throw new NotFoundError('Account');
      return (await repo.listKeys(db, accountId)).map(view);
    },

    // accountId scopes the revocation to one account's keys: another account's key is not found.
    async revoke(keyId: string, accountId?: string, doer: Doer = SYSTEM): Promise<ApiKeyView> {
      const row = await db.transaction(async (tx) => {
        const revoked = await repo.revokeKey(tx, keyId, accountId);
        if (!revoked) throw new NotFoundError('API key');
        if (!revoked.already) {
          await recordAudit(
            tx,
            revoked.account_id,
            doer,
            [
              {
                action: 'key.revoked',
                target: { type: 'api_key', id: revoked.id },
                changes: { prefix: revoked.prefix },
              },
            ],
            deps.now(),
          );
        }
        return revoked;
      });
      return view(row);
    },

    // undefined for a malformed token (no lookup at all), an unknown or a revoked key.
    async authenticate(token: string): Promise<Principal | undefined> {
      if (!isWellFormedKey(token)) return undefined;
      // On the pool: the stamp's asynchronous commit must stay in its own transaction.
      const row = await repo.authenticateKey(db.pool, hashKey(token), deps.now());
      if (!row) return undefined;
      const partner = row.contract_id !== null;
      return {
        keyId: row.key_id,
        actor: { type: 'api_key', id: row.key_id, label: row.prefix },
        accountId: row.account_id,
        scopes: row.scopes,
        plan: row.plan,
        entitled: row.api_access || partner,
        partner,
        emailDelivery: partner ? row.contract_email_delivery === true : row.plan_email_delivery,
        monthlyLimit: partner ? null : row.monthly_limit,
        suspended: row.suspended,
      };
    },
  };
}

export type ApiKeysService = ReturnType<typeof createApiKeysService>;
