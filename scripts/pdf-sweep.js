// After the suite: the signed PDFs the suite froze in its database are checked with poppler's
// pdfsig (docs/proof.md): "Signature is Valid" and "Total document signed", or the run fails.
// Which: the first of every template of every account (each test's own set-up: design, fonts,
// signer, pages) and one in eight of the rest, chosen by the id's hash: about 4,000 of some 20,000
// (checking every one took 5 minutes of CI). Two pdfsig processes at a time, 200 PDFs read at once.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

function pdfsig(file) {
  return new Promise((resolve) => {
    execFile('pdfsig', [file], { encoding: 'utf8' }, (_err, stdout, stderr) => resolve(`${stdout}${stderr}`));
  });
}

export async function sweepSignedPdfs(databaseUrl) {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'certsvc-pdf-sweep-'));
  let checked = 0;
  let signed = 0;
  const failures = [];
  // A run of tests that each made a database of their own leaves this one unmigrated.
  const { rows: tables } = await db.query("SELECT to_regclass('certificate_pdfs') IS NOT NULL AS present");
  if (!tables[0].present) {
    await db.end();
    rmSync(dir, { recursive: true, force: true });
    return { checked, failures };
  }
  try {
    const { rows: picked } = await db.query(
      `SELECT p.certificate_id FROM certificate_pdfs p JOIN certificates c ON c.id = p.certificate_id
        WHERE p.signed_by IS NOT NULL AND (get_byte(decode(md5(p.certificate_id::text), 'hex'), 0) < 32
           OR p.certificate_id IN (SELECT DISTINCT ON (c2.account_id, c2.template_id) c2.id
                                     FROM certificates c2 JOIN certificate_pdfs p2 ON p2.certificate_id = c2.id
                                    WHERE p2.signed_by IS NOT NULL ORDER BY c2.account_id, c2.template_id, c2.id))
        ORDER BY 1`,
    );
    const ids = picked.map((r) => r.certificate_id);
    const { rows: all } = await db.query(
      'SELECT count(*)::int AS n FROM certificate_pdfs WHERE signed_by IS NOT NULL',
    );
    signed = all[0].n;
    for (let at = 0; at < ids.length; at += 200) {
      const { rows } = await db.query(
        'SELECT certificate_id, pdf FROM certificate_pdfs WHERE certificate_id = ANY($1::uuid[])',
        [ids.slice(at, at + 200)],
      );
      let next = 0;
      const lane = async () => {
        while (next < rows.length) {
          const row = rows[next++];
          const file = path.join(dir, `${row.certificate_id}.pdf`);
          writeFileSync(file, row.pdf);
          const out = await pdfsig(file);
          rmSync(file);
          checked++;
          if (!/Signature is Valid\./.test(out) || !/Total document signed/.test(out)) {
            failures.push(`${row.certificate_id}: ${out.trim().split('\n').slice(-3).join(' / ')}`);
          }
        }
      };
      await Promise.all([lane(), lane()]);
    }
  } finally {
    await db.end();
    rmSync(dir, { recursive: true, force: true });
  }
  return { checked, signed, failures };
}
