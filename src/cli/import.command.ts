import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { ValidationError } from '../platform/errors.js';
import type { ImportView } from '../modules/imports/imports.service.js';
import { cliDoer, deps, id, required, type Command } from './command.js';
import { CliError, type Io } from './output.js';

// certsvc import (decisions section 20): the dashboard's import job from the terminal. The file is
// checked whole first (nothing is issued from a bad file; its bytes and rows are counted while it is
// read, section 25), stored as an import, and this process works on its chunks (other instances'
// workers may help) while it draws the progress: a bar on a terminal, a line per change otherwise,
// one JSON object with --json. Exits 1 when rows failed.

const FINAL = new Set(['done', 'cancelled', 'failed']);
const BAR = 30;

function count(n: number): string {
  return n.toLocaleString('en-US');
}

function progressText(i: ImportView): string {
  const rate = i.rowsPerSecond === null ? '' : ` · ${count(Math.round(i.rowsPerSecond))} rows/s`;
  const left = i.secondsLeft === null || FINAL.has(i.state) ? '' : ` · ${i.secondsLeft} s left`;
  return `${count(i.done)}/${count(i.rows)} rows · ${count(i.created)} created · ${count(i.failed)} failed${rate}${left}`;
}

function bar(i: ImportView): string {
  const filled = Math.round((i.done / i.rows) * BAR);
  return `[${'#'.repeat(filled)}${'-'.repeat(BAR - filled)}] ${Math.floor((i.done / i.rows) * 100)}%`;
}

function drawer(io: Io, json: boolean) {
  let last = '';
  return {
    draw(i: ImportView) {
      if (json) return;
      const text = progressText(i);
      if (text === last) return;
      last = text;
      if (io.tty && io.write) io.write(`\r\u001b[2K${bar(i)} ${text}`);
      else io.out(text);
    },
    end() {
      if (!json && io.tty && io.write) io.write('\n');
    },
  };
}

export const importCommand: Command = {
  path: ['import'],
  usage: 'import ACCOUNT_ID --template TEMPLATE_ID --csv FILE',
  positionals: ['ACCOUNT_ID'],
  options: { template: { type: 'string' }, csv: { type: 'string' } },
  async run(ctx) {
    const accountId = id(ctx.args[0], 'ACCOUNT_ID');
    const templateId = id(required(ctx, 'template'), '--template');
    const file = required(ctx, 'csv');
    const { services } = deps(ctx);
    if (!services.signingKeys.canSign) {
      throw new CliError(
        'SIGNING_KEYS_SECRET is not set: issuing signs each certificate (see docs/proof.md)',
        2,
      );
    }
    const cannotRead = (err: unknown) =>
      new CliError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`, 2);
    const template = await services.templates.get(accountId, templateId);
    let handle: FileHandle;
    try {
      handle = await open(file);
    } catch (err) {
      throw cannotRead(err);
    }
    let rows;
    // The CSV reader is loaded by this command only.
    const { MAX_CSV_BYTES, readRecipientsCsv, tooLarge } =
      await import('../modules/imports/recipients-csv.js');
    try {
      // The size first, then the rows and bytes counted while the file is read (recipients-csv.ts).
      if ((await handle.stat()).size > MAX_CSV_BYTES) tooLarge();
      rows = await readRecipientsCsv(handle.createReadStream({ autoClose: false }), template.fields);
    } catch (err) {
      if (err instanceof ValidationError) throw new CliError(`${file}: ${err.message}`, 2);
      if ((err as NodeJS.ErrnoException).syscall) throw cannotRead(err);
      throw err;
    } finally {
      await handle.close();
    }
    let imp = await services.imports.create(cliDoer(), {
      accountId,
      templateId,
      fileName: path.basename(file),
      createdBy: 'cli',
      rows,
    });
    if (!ctx.json) ctx.io.out(`Import ${imp.id}: ${count(imp.rows)} rows from ${path.basename(file)}`);
    const progress = drawer(ctx.io, ctx.json);
    progress.draw(imp);
    while (!FINAL.has(imp.state)) {
      const worked = await services.imports.runChunk(imp.id);
      imp = await services.imports.get(accountId, imp.id);
      progress.draw(imp);
      // Other instances hold the last chunks: wait for them.
      if (!worked && !FINAL.has(imp.state)) await new Promise((r) => setTimeout(r, 500));
    }
    progress.end();
    const summary = {
      id: imp.id,
      state: imp.state,
      rows: imp.rows,
      created: imp.created,
      failed: imp.failed,
    };
    if (ctx.json) ctx.io.out(JSON.stringify({ ...summary, ...ctx.io.jsonFields }));
    else {
      ctx.io.out(
        `Import ${imp.state}: ${count(imp.created)} created, ${count(imp.failed)} failed` +
          (imp.failed > 0 ? ` (the reasons: dashboard, /dashboard/imports/${imp.id}/results.csv)` : ''),
      );
    }
    return imp.state === 'done' && imp.failed === 0 ? 0 : 1;
  },
};
