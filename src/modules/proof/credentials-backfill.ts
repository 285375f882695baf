import type { Db, Queryable } from '../../platform/db/db.js';
import type { CredentialSigning } from './credential-signing.js';
import { insertCredentials, revokeCredential } from './credentials.repository.js';
import type { SigningKeys } from './signing-keys.service.js';
import { takeEntries } from './status-lists.repository.js';

// Certificates issued before credentials existed get theirs, once, `batch` at a time in one
// transaction each: validFrom their issue time, frozen from then on; a revoked one gets its bit.
// Safe beside a live service and resumable: the rows are locked (SKIP LOCKED) and re-checked.
// `accountId` limits it to one account.

interface Unproven {
  id: string;
  account_id: string;
  account_name: string;
  template_id: string;
  template_name: string;
  recipient_description: string | null;
  recipient_name: string;
  recipient_email: string;
  title: string;
  issued_at: Date;
  expires_at: Date | null;
  status: string;
}

async function lockUnproven(tx: Queryable, batch: number, accountId: string | null): Promise<Unproven[]> {
  const { rows } = await tx.query<Unproven>(
    `SELECT c.id, c.account_id, c.issuer_name AS account_name, c.template_id, t.name AS template_name,
            COALESCE(v.design, t.design)->>'recipientDescription' AS recipient_description, c.recipient_name, c.recipient_email, c.title,
            c.issued_at, c.expires_at, c.status
       FROM certificates c JOIN templates t ON t.id = c.template_id
       LEFT JOIN template_versions v ON v.template_id = c.template_id AND v.version = c.template_version
      WHERE c.status <> 'Draft' AND NOT EXISTS (SELECT 1 FROM credentials cr WHERE cr.certificate_id = c.id)
        AND ($2::uuid IS NULL OR c.account_id = $2)
      ORDER BY c.account_id, c.id LIMIT $1 FOR UPDATE OF c SKIP LOCKED`,
    [batch, accountId],
  );
  return rows;
}

export async function backfillCredentials(
  deps: { db: Db; now: () => Date; signingKeys: SigningKeys; signing: CredentialSigning },
  opts: { batch?: number; accountId?: string } = {},
): Promise<{ made: number }> {
  const { db } = deps;
  const batch = opts.batch ?? 500;
  deps.signingKeys.assertCanSign();
  await deps.signing.ready();
  let made = 0;
  for (;;) {
    const done = await db.transaction(async (tx) => {
      const rows = await lockUnproven(tx, batch, opts.accountId ?? null);
      if (rows.length === 0) return true;
      const byIssue = new Map<string, Unproven[]>();
      for (const r of rows) {
        // The name each was issued under (frozen), not the organisation's name now.
        const k = JSON.stringify([r.account_id, r.template_id, r.account_name]);
        byIssue.set(k, [...(byIssue.get(k) ?? []), r]);
      }
      for (const group of byIssue.values()) {
        const first = group[0]!;
        const key = await deps.signingKeys.credentialKey(first.account_id, tx);
        const entries = await takeEntries(tx, first.account_id, group.length);
        const credentials = await deps.signing.sign(
          key,
          {
            accountId: first.account_id,
            accountName: first.account_name,
            template: {
              id: first.template_id,
              name: first.template_name,
              recipientDescription: first.recipient_description,
            },
            issuedAt: deps.now(),
            subjects: group.map((r) => ({
              certificateId: r.id,
              recipientName: r.recipient_name,
              recipientEmail: r.recipient_email,
              title: r.title,
              issuedAt: r.issued_at,
              expiresAt: r.expires_at,
            })),
          },
          entries,
        );
        await insertCredentials(tx, first.account_id, credentials);
        for (const r of group) if (r.status === 'Revoked') await revokeCredential(tx, r.account_id, r.id);
      }
      made += rows.length;
      return false;
    });
    if (done) return { made };
  }
}
