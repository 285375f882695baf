import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import v8 from 'node:v8';
import vm from 'node:vm';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { safeFileName } from '../../src/platform/zip.js';
import { createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';
import { worldNames } from '../helpers/world-names.js';
import { formClient, signedInMember, type FormClient } from './form-client.js';

// docs/dashboard.md, ZIP downloads: the PDFs of a search (up to 5,000) or of an upload, streamed as
// one ZIP (memory flat whatever the count), files named <recipient name>-<code>.pdf made safe for
// every system, each counted as a download. Checked with Info-ZIP's unzip.

const dir = mkdtempSync(path.join(os.tmpdir(), 'certsvc-zip-'));

// Names that are awkward as file names, then the world's scripts, then plain ones.
const AWKWARD = ['CON', 'a/b\\c: d*e?f"g<h>i|j', '...dots...', 'Émilie Dubois-Ngô', 'nul.txt', ' trailing. '];

// The href of the page's "Download PDFs (ZIP)" link.
function zipLink(body: string): string | undefined {
  const tag = /<a\b[^>]*\bid="download-zip"[^>]*>/.exec(body)?.[0];
  return tag && /\bhref="([^"]+)"/.exec(tag)?.[1]?.replaceAll('&#x2F;', '/');
}

// Downloads `url` to `file` in a child process, writing the status and headers to `headersFile`.
function download(url: string, cookie: string, file: string, headersFile: string): Promise<void> {
  const script = `
    const { createWriteStream, writeFileSync } = require('node:fs');
    const { Readable } = require('node:stream');
    const { pipeline } = require('node:stream/promises');
    const [url, cookie, file, headersFile] = process.argv.slice(1);
    fetch(url, { headers: { cookie } }).then(async (res) => {
      writeFileSync(headersFile, JSON.stringify({ status: res.status, type: res.headers.get('content-type'), disposition: res.headers.get('content-disposition') }));
      await pipeline(Readable.fromWeb(res.body), createWriteStream(file));
    }).catch((err) => { console.error(err); process.exit(1); });`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script, url, cookie, file, headersFile], {
      stdio: 'inherit',
    });
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`download exited ${code}`))));
  });
}

function unzip(args: string[], file: string): string {
  return execFileSync('unzip', [...args, file], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

describe('dashboard: PDFs as one ZIP', () => {
  let t: TestApp;
  let base: string;
  let tenant: Tenant;
  let client: FormClient;

  before(async () => {
    t = await startTestApp({ RATE_LIMIT_MAX: '100000' });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    tenant = await createTenant(t.deps, { monthlyLimit: 100_000 });
    client = await signedInMember(t, tenant.accountId);
  });
  after(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const cookie = () => [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ');

  it('makes file names every system accepts', () => {
    assert.equal(safeFileName('CON', 'certificate'), 'certificate');
    assert.equal(safeFileName('nul.txt', 'certificate'), 'certificate');
    assert.equal(safeFileName('a/b\\c: d*e?f"g<h>i|j', 'x'), 'abc defghij');
    assert.equal(safeFileName('...dots...', 'x'), 'dots');
    assert.equal(safeFileName(' trailing. ', 'x'), 'trailing');
    assert.equal(safeFileName('\u202eevil\u2066', 'x'), 'evil');
    assert.equal(safeFileName('', 'x'), 'x');
    assert.equal([...safeFileName('é'.repeat(300), 'x')].length, 80);
  });

  it('streams 2,000 PDFs of a search as a valid ZIP with flat memory, each counted as a download', async () => {
    const names = [...AWKWARD, ...worldNames.map((w) => w.name)];
    for (let batch = 0; batch < 4; batch++) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/certificates',
        headers: tenant.auth,
        payload: {
          templateId: tenant.templateId,
          recipients: Array.from({ length: 500 }, (_, i) => ({
            name: batch === 0 && i < names.length ? names[i] : `Learner ${batch * 500 + i}`,
            email: `z${batch * 500 + i}@example.com`,
            data: { course: 'Zipped' },
          })),
        },
      });
      assert.equal(res.statusCode, 201, res.body.slice(0, 300));
      assert.equal(
        res.json().data.created,
        500,
        JSON.stringify(res.json().data.results.filter((r: { status: string }) => r.status === 'failed')),
      );
    }
    const list = await client.get('/dashboard/certificates');
    assert.equal(zipLink(list.body), '/dashboard/certificates/pdfs.zip');

    // The server runs in this process: what it holds is sampled while the ZIP streams to a file,
    // each sample after a full garbage collection, so that only what is kept counts (garbage waits
    // for V8's own timing, which says nothing about buffering).
    // What the server holds: JavaScript heap and Buffers (the idle PDF threads' heaps and the
    // allocator's free pages, which RSS also counts, say nothing about buffering).
    const held = () => {
      const m = process.memoryUsage();
      return m.heapUsed + m.arrayBuffers;
    };
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    gc();
    const before = held();
    let peak = before;
    const sampler = setInterval(() => {
      gc();
      peak = Math.max(peak, held());
    }, 100);
    // The client is another process (a client in this one would count its own buffers).
    const file = path.join(dir, 'search.zip');
    const headersFile = `${file}.headers.json`;
    await download(`${base}/dashboard/certificates/pdfs.zip`, cookie(), file, headersFile);
    clearInterval(sampler);
    const headers = JSON.parse(readFileSync(headersFile, 'utf8')) as {
      status: number;
      type: string;
      disposition: string;
    };
    assert.equal(headers.status, 200);
    assert.equal(headers.type, 'application/zip');
    assert.match(headers.disposition, /^attachment; filename="certificates-\d{4}-\d{2}-\d{2}\.zip"$/);
    const size = statSync(file).size;
    assert.match(unzip(['-tq'], file), /No errors detected/);
    const entries = unzip(['-Z1'], file).trim().split('\n');
    assert.equal(entries.length, 2000);
    for (const name of entries) {
      assert.match(name, /-[0-9A-HJKMNP-TV-Z]{16}\.pdf$/, name);
      // eslint-disable-next-line no-control-regex
      assert.doesNotMatch(name, /[/\\:*?"<>|\u0000-\u001f]|^\.|^ /, name);
    }
    assert.ok(
      entries.some((n) => /^certificate-[0-9A-Z]{16}\.pdf$/.test(n)),
      'CON became "certificate"',
    );
    assert.ok(
      entries.some((n) => n.startsWith('Émilie Dubois-Ngô-')),
      'UTF-8 names kept',
    );
    // The bytes of one file are the frozen PDF.
    const one = await t.app.inject({
      method: 'GET',
      url: '/api/v1/certificates?perPage=1',
      headers: tenant.auth,
    });
    const newest = one.json().data[0];
    const extracted = execFileSync('unzip', ['-p', file, `*-${newest.uniqueCode}.pdf`], {
      maxBuffer: 1 << 24,
    });
    const pdf = await t.app.inject({
      method: 'GET',
      url: `/api/v1/certificates/${newest.id}/pdf`,
      headers: tenant.auth,
    });
    assert.deepEqual(extracted, pdf.rawPayload);
    const { rows } = await t.deps.db.query<{ total: number; counted: number }>(
      `SELECT count(*)::int AS total, count(*) FILTER (WHERE download_count >= 1)::int AS counted
         FROM certificates WHERE account_id = $1`,
      [tenant.accountId],
    );
    assert.deepEqual(rows[0], { total: 2000, counted: 2000 }, 'each file counted as a download');
    const growth = peak - before;
    assert.ok(
      // A fixed bound well under the ZIP's size: what is in flight (a page of PDFs, socket buffers).
      growth < Math.min(32e6, size * 0.45),
      `the server's heap and buffers grew ${Math.round(growth / 1e6)} MB for a ${Math.round(size / 1e6)} MB ZIP`,
    );
    const searched = await fetch(`${base}/dashboard/certificates/pdfs.zip?q=Learner%20199`, {
      headers: { cookie: cookie() },
    });
    const small = path.join(dir, 'small.zip');
    writeFileSync(small, Buffer.from(await searched.arrayBuffer()));
    assert.deepEqual(
      unzip(['-Z1'], small)
        .trim()
        .split('\n')
        .map((n) => n.replace(/-[0-9A-Z]{16}\.pdf$/, ''))
        .sort(),
      [
        'Learner 199',
        'Learner 1990',
        'Learner 1991',
        'Learner 1992',
        'Learner 1993',
        'Learner 1994',
        'Learner 1995',
        'Learner 1996',
        'Learner 1997',
        'Learner 1998',
        'Learner 1999',
      ],
      'the search narrows the ZIP',
    );
  });

  it("downloads an upload's created certificates as a ZIP; another account's upload is not found", async () => {
    await client.get(`/dashboard/certificates/upload?templateId=${tenant.templateId}`);
    const res = await client.upload(
      '/dashboard/certificates/upload',
      { templateId: tenant.templateId },
      {
        name: 'recipients.csv',
        content: 'name,email,course\nAda Lovelace,ada@a.test,Engines\nGrace Hopper,grace@a.test,COBOL\n',
      },
    );
    assert.ok([200, 303].includes(res.statusCode), res.body.slice(0, 200));
    const location = res.headers.location ?? '';
    const page = res.statusCode === 303 ? await client.get(String(location)) : res;
    const href = zipLink(page.body);
    assert.ok(
      href,
      `the results page links the ZIP: ${res.statusCode} ${String(location)} ${page.body.slice(0, 3000)}`,
    );
    const zip = await client.get(href);
    assert.equal(zip.statusCode, 200);
    const file = path.join(dir, 'upload.zip');
    writeFileSync(file, zip.rawPayload);
    assert.match(unzip(['-tq'], file), /No errors detected/);
    assert.deepEqual(
      unzip(['-Z1'], file)
        .trim()
        .split('\n')
        .map((n) => n.replace(/-[0-9A-Z]{16}\.pdf$/, '')),
      ['Ada Lovelace', 'Grace Hopper'],
    );
    const stranger = formClient(t);
    assert.notEqual((await stranger.get(href)).statusCode, 200);
    assert.ok(readFileSync(file).length > 0);
  });
});
