import { randomInt } from 'node:crypto';
import type { Queryable } from '../../platform/db/db.js';

// Bitstring Status Lists: 131,072 entries per list (the spec's minimum, for herd privacy). Entries
// are handed out at random among the free ones, so that an index says nothing about issue order; a
// list is left for the next once half full, which keeps a random pick nearly always free.
export const LIST_SIZE = 131_072;
export const FILL_LIMIT = LIST_SIZE / 2;

export interface StatusEntry {
  list: number;
  index: number;
}

// `count` free entries of the account's current list, taken in the caller's transaction. The list
// row is locked, so concurrent issues of one account take turns (as they already do for quota).
export async function takeEntries(db: Queryable, accountId: string, count: number): Promise<StatusEntry[]> {
  if (count === 0) return [];
  // The usual case in two statements: the newest list has room for all of them. The UPDATE locks
  // its row and re-checks the room once locked (a list another issue filled meanwhile is not used).
  const roomy = await db.query<{ n: number }>(
    `UPDATE status_lists SET used = used + $2
      WHERE account_id = $1 AND n = (SELECT max(n) FROM status_lists WHERE account_id = $1) AND used + $2 <= $3
      RETURNING n`,
    [accountId, count, FILL_LIMIT],
  );
  if (roomy.rows[0]) {
    const { n } = roomy.rows[0];
    return (await pickFree(db, accountId, n, count)).map((index) => ({ list: n, index }));
  }
  await db.query(`INSERT INTO status_lists (account_id, n, bits) VALUES ($1, 0, $2) ON CONFLICT DO NOTHING`, [
    accountId,
    Buffer.alloc(LIST_SIZE / 8),
  ]);
  const { rows } = await db.query<{ n: number; used: number }>(
    'SELECT n, used FROM status_lists WHERE account_id = $1 ORDER BY n DESC LIMIT 1 FOR UPDATE',
    [accountId],
  );
  let { n, used } = rows[0]!;
  const entries: StatusEntry[] = [];
  while (entries.length < count) {
    if (used >= FILL_LIMIT) {
      n += 1;
      used = 0;
      await db.query('INSERT INTO status_lists (account_id, n, bits) VALUES ($1, $2, $3)', [
        accountId,
        n,
        Buffer.alloc(LIST_SIZE / 8),
      ]);
    }
    const want = Math.min(count - entries.length, FILL_LIMIT - used);
    const picked = await pickFree(db, accountId, n, want);
    await db.query('UPDATE status_lists SET used = used + $3 WHERE account_id = $1 AND n = $2', [
      accountId,
      n,
      picked.length,
    ]);
    used += picked.length;
    for (const index of picked) entries.push({ list: n, index });
  }
  return entries;
}

// `count` distinct random entries of a list, to be checked for being free.
export function randomEntries(count: number): number[] {
  const picked = new Set<number>();
  while (picked.size < count) picked.add(randomInt(LIST_SIZE));
  return [...picked];
}

async function pickFree(db: Queryable, accountId: string, n: number, want: number): Promise<number[]> {
  const chosen = new Set<number>();
  while (chosen.size < want) {
    const candidates = randomEntries(want - chosen.size).filter((i) => !chosen.has(i));
    const { rows } = await db.query<{ status_index: number }>(
      'SELECT status_index FROM credentials WHERE account_id = $1 AND status_list = $2 AND status_index = ANY($3)',
      [accountId, n, candidates],
    );
    const taken = new Set(rows.map((r) => r.status_index));
    for (const i of candidates) if (!taken.has(i)) chosen.add(i);
  }
  return [...chosen];
}

// Sets an entry's bit (bit 0 is the most significant bit of byte 0); PostgreSQL's set_bit counts
// from the least significant bit of each byte, hence the flip within the byte.
export async function setRevoked(db: Queryable, accountId: string, entry: StatusEntry): Promise<void> {
  const bit = entry.index - (entry.index % 8) + 7 - (entry.index % 8);
  await db.query(
    'UPDATE status_lists SET bits = set_bit(bits, $3, 1), updated_at = now() WHERE account_id = $1 AND n = $2',
    [accountId, entry.list, bit],
  );
}

export async function readList(
  db: Queryable,
  accountId: string,
  n: number,
): Promise<{ bits: Buffer; updatedAt: Date } | undefined> {
  const { rows } = await db.query<{ bits: Buffer; updated_at: Date }>(
    'SELECT bits, updated_at FROM status_lists WHERE account_id = $1 AND n = $2',
    [accountId, n],
  );
  return rows[0] && { bits: rows[0].bits, updatedAt: rows[0].updated_at };
}
