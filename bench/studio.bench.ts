import { benchDatabase, ms, percentile, startServer } from './support.js';

// The design studio's live preview (issue 18): the round trip of one re-render as the editor makes
// it (POST /dashboard/templates/:id/preview.pdf with the whole design and the sample values, the
// CSRF token and the session cookie), against a server started with `certsvc serve`, on an idle
// machine, one request at a time. Each request moves the name by 0.1 pt, so no answer comes from
// the preview cache: every one is a real render. `node dist/bench/studio.bench.js [requests]`.
// Goal: p50 under 50 ms.

const COUNT = Number(process.argv[2] ?? 300);
const PASSWORD = 'correct horse battery staple';

// A cookie jar of one browser.
const jar = new Map<string, string>();
function remember(res: Response) {
  for (const line of res.headers.getSetCookie()) {
    const [pair] = line.split(';');
    const eq = pair!.indexOf('=');
    jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
  }
}
const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
const token = (page: string) => /name="_csrf" value="([^"]+)"/.exec(page)![1]!;

async function get(url: string): Promise<string> {
  const res = await fetch(url, { headers: { cookie: cookie() }, redirect: 'manual' });
  remember(res);
  return res.text();
}

async function post(url: string, fields: Record<string, string>): Promise<Response> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { cookie: cookie(), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });
  remember(res);
  return res;
}

const bench = await benchDatabase();
const s = bench.deps.services;
const account = await s.accounts.create({ name: 'Studio Bench', plan: 'Business', monthlyLimit: null });
const email = 'designer@bench.test';
await s.users.create({ accountId: account.id, email, password: PASSWORD });
const server = await startServer({ DATABASE_URL: bench.databaseUrl, DATA_DIR: bench.dataDir });
try {
  await post(`${server.base}/dashboard/sign-in`, {
    _csrf: token(await get(`${server.base}/dashboard`)),
    email,
    password: PASSWORD,
  });
  const made = await post(`${server.base}/dashboard/templates/new`, {
    _csrf: token(await get(`${server.base}/dashboard/templates/new`)),
    design: 'course-completion',
  });
  const editUrl = `${server.base}${made.headers.get('location')}`;
  const page = await get(editUrl);
  const csrf = token(page);
  const id = /templates\/([0-9a-f-]{36})\/edit/.exec(editUrl)![1]!;
  const working = await s.templates.working(account.id, id);
  const design = structuredClone(working.design) as { elements: { text?: string; x: number }[] };
  const name = design.elements.find((e) => e.text === '{{recipient.name}}')!;
  const url = `${server.base}/dashboard/templates/${id}/preview.pdf`;
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < COUNT + 20; i++) {
    name.x = 121 + ((i % 200) + 1) / 10 + Math.floor(i / 200);
    const t0 = performance.now();
    const res = await fetch(url, {
      method: 'POST',
      headers: { cookie: cookie(), 'content-type': 'application/json', 'x-csrf-token': csrf },
      body: JSON.stringify({
        design,
        sample: { recipientName: 'مريم الحسيني', data: { course: 'Rhetoric' } },
      }),
    });
    const body = Buffer.from(await res.arrayBuffer());
    if (res.status !== 200 || body.subarray(0, 5).toString() !== '%PDF-')
      throw new Error(`preview answered ${res.status}`);
    if (i >= 20) times.push(performance.now() - t0); // the first 20 warm the workers up
    bytes = body.length;
  }
  console.log(
    `studio preview round trip (design ${JSON.stringify(design).length} B, PDF ${bytes} B), ${COUNT} renders: ` +
      `p50 ${ms(percentile(times, 50))}, p95 ${ms(percentile(times, 95))}, max ${ms(Math.max(...times))}`,
  );
} finally {
  await server.stop();
  await bench.close();
}
