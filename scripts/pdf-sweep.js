// After the suite: every signed PDF the suite froze in its database is checked with poppler's
// pdfsig (docs/proof.md): "Signature is Valid" and "Total document signed", or the run fails.
// Two pdfsig processes at a time, PDFs read 200 at a time.
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
  const failures = [];
  // A run of tests that each made a database of their own leaves this one unmigrated.
  const { rows: tables } = await db.query("SELECT to_regclass('certificate_pdfs') IS NOT NULL AS present");
  if (!tables[0].present) {
    await db.end();
    rmSync(dir, { recursive: true, force: true });
    return { checked, failures };
  }
  try {
    let after = '00000000-0000-0000-0000-000000000000';
    for (;;) {
      const { rows } = await db.query(
        `SELECT certificate_id, pdf FROM certificate_pdfs WHERE signed_by IS NOT NULL AND certificate_id > $1
          ORDER BY certificate_id LIMIT 200`,
        [after],
      );
      if (rows.length === 0) break;
      after = rows.at(-1).certificate_id;
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
  return { checked, failures };
}
