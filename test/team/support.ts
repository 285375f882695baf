import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import type { Db } from '../../src/platform/db/db.js';

// What the team's tests read back: the link of the newest .eml the server wrote to an address (the
// embedded default's mail path, DATA_DIR/mail), and an account's rows.

export async function linkInMail(
  dataDir: string,
  to: string,
  prefix = '/dashboard/invitations/',
): Promise<string> {
  const dir = path.join(dataDir, 'mail');
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.eml'))
    .sort()
    .reverse();
  for (const file of files) {
    const mail = await simpleParser(readFileSync(path.join(dir, file)));
    const address = Array.isArray(mail.to) ? mail.to[0] : mail.to;
    if (address?.value[0]?.address !== to) continue;
    const found = new RegExp(`https?://[^\\s"<]+${prefix.replace(/\//g, '\\/')}[A-Za-z0-9_-]+`).exec(
      mail.text ?? '',
    );
    if (found) return new URL(found[0]).pathname;
  }
  throw new Error(`no mail to ${to} with a link under ${prefix} in ${dir}`);
}

export async function mailCount(dataDir: string): Promise<number> {
  try {
    return readdirSync(path.join(dataDir, 'mail')).filter((f) => f.endsWith('.eml')).length;
  } catch {
    return 0;
  }
}

export async function auditActions(
  db: Db,
  accountId: string,
): Promise<
  {
    action: string;
    actor_type: string;
    actor_label: string | null;
    target_id: string | null;
    changes: Record<string, unknown>;
  }[]
> {
  const { rows } = await db.query(
    'SELECT action, actor_type, actor_label, target_id, changes FROM audit_events WHERE account_id = $1 ORDER BY seq',
    [accountId],
  );
  return rows;
}

export async function roleOf(db: Db, userId: string): Promise<string | undefined> {
  const { rows } = await db.query<{ role: string }>('SELECT role FROM users WHERE id = $1', [userId]);
  return rows[0]?.role;
}
