import type { Db, Queryable } from '../../platform/db/db.js';
import type { Doer } from '../../platform/principal.js';

export type { Doer };
import { NotFoundError } from '../../platform/errors.js';
import { findAccount } from '../accounts/accounts.repository.js';
import { recordAudit } from '../audit/audit-log.js';

// What the signing keys service's changes share: the account they change, and their audit event.

export async function existingAccount(db: Db, accountId: string) {
  const account = await findAccount(db, accountId);
  if (!account) throw new NotFoundError('Account');
  return account;
}

// A new current signing key or PDF certificate: `change` makes it, in one transaction with its audit
// event (`signing_key.rotated`, naming which one; never its key).
export function rotatedEvent(
  deps: { db: Db; now: () => Date },
  doer: Doer,
  accountId: string,
  changes: { kind: string; id: string; source?: string },
  change: (tx: Queryable, at: Date) => Promise<void>,
): Promise<void> {
  const target = { type: changes.kind, id: changes.id };
  const at = deps.now();
  return deps.db.transaction(async (tx) => {
    await change(tx, at);
    await recordAudit(tx, accountId, doer, [{ action: 'signing_key.rotated', target, changes }], at);
  });
}
