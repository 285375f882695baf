import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { pdfText } from '../pdf/pdf-helpers.js';
import { bundledFace, bundledFacePath } from '../../src/pdf/font-catalog.js';
import { createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';
import { signedInMember, type FormClient } from './form-client.js';

// The design studio's pages over HTTP (issue 18): the gallery, drafts, save and publish, history,
// restore, duplicate, archive and previews with sample values; CSRF on every POST; another
// account's template is the 404 page. The editor in a real browser: studio.test.ts.

describe('dashboard: design studio forms', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  async function signedIn(): Promise<{ tenant: Tenant; client: FormClient }> {
    const tenant = await createTenant(t.deps);
    return { tenant, client: await signedInMember(t, tenant.accountId) };
  }

  const apiList = async (tenant: Tenant) =>
    (await t.app.inject({ method: 'GET', url: '/api/v1/templates?perPage=100', headers: tenant.auth })).json()
      .data as { id: string; name: string }[];

  async function newDraft(client: FormClient, design = 'diploma-portrait'): Promise<string> {
    const gallery = await client.get('/dashboard/templates/new');
    assert.equal(gallery.statusCode, 200);
    const res = await client.post('/dashboard/templates/new', { design });
    assert.equal(res.statusCode, 303, res.body);
    const id = /\/dashboard\/templates\/([0-9a-f-]{36})\/edit$/.exec(String(res.headers.location))?.[1];
    assert.ok(id, String(res.headers.location));
    return id;
  }

  it('the gallery offers the four starting designs, each a button named after it, with a preview', async () => {
    const { client } = await signedIn();
    const res = await client.get('/dashboard/templates/new');
    // The first is Sign out.
    const buttons = [...res.body.matchAll(/<button type="submit">([^<]+)<\/button>/g)].map((m) => m[1]);
    assert.deepEqual(buttons.slice(1), [
      'Course completion',
      'Event attendance',
      'Diploma',
      'Minimal modern',
    ]);
    for (const slug of ['course-completion', 'event-attendance', 'diploma-portrait', 'minimal-modern']) {
      const pdf = await client.get(`/dashboard/templates/gallery/${slug}/preview.pdf`);
      assert.equal(pdf.statusCode, 200, slug);
      assert.equal(pdf.headers['content-type'], 'application/pdf');
    }
    assert.equal((await client.get('/dashboard/templates/gallery/nope/preview.pdf')).statusCode, 404);
  });

  it('New template makes a draft the API does not list; Save makes versions; Publish lists it', async () => {
    const { tenant, client } = await signedIn();
    const id = await newDraft(client);
    const editor = await client.get(`/dashboard/templates/${id}/edit`);
    assert.equal(editor.statusCode, 200);
    assert.match(editor.body, /data-testid="design-canvas"/);
    assert.match(editor.headers['content-security-policy'] as string, /connect-src 'self'/);
    assert.match(editor.body, /<label for="sample-name">Recipient name<\/label>/);
    assert.match(editor.body, /<label for="sample-degree"><bdi>Degree<\/bdi><\/label>/);
    assert.ok(!(await apiList(tenant)).some((x) => x.id === id), 'a draft is not listed');

    const design = (await t.deps.services.templates.working(tenant.accountId, id)).design;
    const saved = await client.post(`/dashboard/templates/${id}/edit`, {
      design: JSON.stringify({ ...design, name: 'Diploma in Law' }),
      intent: 'save',
    });
    assert.equal(saved.statusCode, 303);
    const page = await client.get(`/dashboard/templates/${id}/edit`);
    assert.match(page.body, /Saved as version 2\. It stays a draft until you publish it\./);
    assert.ok(!(await apiList(tenant)).some((x) => x.id === id));

    const published = await client.post(`/dashboard/templates/${id}/edit`, {
      design: JSON.stringify({ ...design, name: 'Diploma in Law' }),
      intent: 'publish',
    });
    assert.equal(published.statusCode, 303);
    assert.match(
      (await client.get(`/dashboard/templates/${id}/edit`)).body,
      /Nothing changed since the last save\. Published/,
    );
    assert.deepEqual(
      (await apiList(tenant)).filter((x) => x.id === id).map((x) => x.name),
      ['Diploma in Law'],
    );
    const list = await client.get('/dashboard/templates');
    assert.match(list.body, /Diploma in Law/);
    assert.match(list.body, /New template/);
  });

  it('Edit as JSON: an invalid design is refused with the messages of the CLI, and the text is kept', async () => {
    const { tenant, client } = await signedIn();
    const id = await newDraft(client, 'minimal-modern');
    const design = (await t.deps.services.templates.working(tenant.accountId, id)).design;
    const bad = JSON.stringify({
      ...design,
      elements: [{ type: 'text', text: '{{data.nope}}', x: 1, y: 1, width: 10 }],
    });
    const res = await client.post(`/dashboard/templates/${id}/edit`, { design: bad, intent: 'save' });
    assert.equal(res.statusCode, 422);
    assert.match(
      res.body,
      // The element named as the studio's list names it, from 1.
      /Not saved\. The design is not valid: Text 1: \{\{data\.nope\}\} uses a key that is not declared in fields/,
    );
    assert.ok(res.body.includes('{{data.nope}}'), 'the typed JSON is shown again');
    const notJson = await client.post(`/dashboard/templates/${id}/edit`, { design: '{', intent: 'save' });
    assert.equal(notJson.statusCode, 422);
    assert.match(notJson.body, /The design is not valid JSON/);
    assert.equal((await t.deps.services.templates.working(tenant.accountId, id)).latestVersion, 1);
  });

  it('history previews any version; restore copies it as the newest; duplicate and archive', async () => {
    const { tenant, client } = await signedIn();
    const id = await newDraft(client, 'course-completion');
    const design = (await t.deps.services.templates.working(tenant.accountId, id)).design;
    await client.post(`/dashboard/templates/${id}/edit`, {
      design: JSON.stringify({ ...design, name: 'Second name' }),
      intent: 'publish',
    });
    const history = await client.get(`/dashboard/templates/${id}/history`);
    assert.equal(history.statusCode, 200);
    assert.match(history.body, /Restore version 1/);
    assert.match(history.body, /created from the starting design Course completion/);
    const v1 = await client.get(`/dashboard/templates/${id}/preview.pdf?version=1`);
    assert.equal(v1.statusCode, 200);
    assert.match(pdfText(v1.rawPayload), /Certificate of Completion/);

    const restore = await client.post(`/dashboard/templates/${id}/versions/1/restore`, {});
    assert.equal(restore.statusCode, 303);
    const after = await t.deps.services.templates.working(tenant.accountId, id);
    assert.deepEqual([after.latestVersion, after.version, after.design.name], [3, 2, 'Course completion']);

    const dup = await client.post(`/dashboard/templates/${id}/duplicate`, {});
    assert.equal(dup.statusCode, 303);
    const copyId = /templates\/([0-9a-f-]{36})\/edit/.exec(String(dup.headers.location))![1]!;
    assert.equal(
      (await t.deps.services.templates.working(tenant.accountId, copyId)).name,
      'Copy of Course completion',
    );

    assert.equal((await client.get(`/dashboard/templates/${id}/archive`)).statusCode, 200);
    assert.equal((await client.post(`/dashboard/templates/${id}/archive`, {})).statusCode, 303);
    assert.ok(!(await apiList(tenant)).some((x) => x.id === id));
    assert.equal((await client.get(`/dashboard/templates/${id}/edit`)).statusCode, 404);
  });

  it('the preview prints realistic sample values, or the ones typed; Download preview PDF is a file', async () => {
    const { tenant, client } = await signedIn();
    const base = `/dashboard/templates/${tenant.templateId}/preview.pdf`;
    const plain = await client.get(base);
    const text = pdfText(plain.rawPayload);
    assert.match(text, /Hours of instruction: 12/);
    assert.doesNotMatch(text, /Hours of instruction: Hours of instruction/);
    assert.match(text, /Safe Lifting Techniques/);
    assert.equal(plain.headers['content-disposition'], 'inline; filename="template-preview.pdf"');

    const own = await client.get(
      `${base}?latest=1&recipientName=${encodeURIComponent('Ἀριστοτέλης')}&data.course=Rhetoric&data.hours=40&download=1`,
    );
    assert.equal(own.statusCode, 200);
    assert.equal(own.headers['content-disposition'], 'attachment; filename="template-preview.pdf"');
    const ownText = pdfText(own.rawPayload);
    assert.match(ownText, /Ἀριστοτέλης/);
    assert.match(ownText, /Rhetoric/);
    assert.match(ownText, /Hours of instruction: 40/);
  });

  it('every POST needs the CSRF token; another account’s template is the 404 page', async () => {
    const { client } = await signedIn();
    const id = await newDraft(client);
    const { tenant: other } = await signedIn();
    const token = client.csrf;
    client.csrf = 'wrong';
    for (const url of [
      '/dashboard/templates/new',
      `/dashboard/templates/${id}/edit`,
      `/dashboard/templates/${id}/publish`,
      `/dashboard/templates/${id}/versions/1/restore`,
      `/dashboard/templates/${id}/duplicate`,
      `/dashboard/templates/${id}/archive`,
      `/dashboard/templates/${id}/preview.pdf`,
    ]) {
      assert.equal((await client.post(url, { design: 'diploma-portrait' })).statusCode, 403, url);
    }
    client.csrf = token;
    for (const url of ['edit', 'history', 'archive', 'preview.pdf']) {
      assert.equal(
        (await client.get(`/dashboard/templates/${other.templateId}/${url}`)).statusCode,
        404,
        url,
      );
    }
    for (const url of ['publish', 'duplicate', 'archive', 'versions/1/restore']) {
      await client.get('/dashboard/templates');
      const res = await client.post(`/dashboard/templates/${other.templateId}/${url}`, {});
      assert.equal(res.statusCode, 404, url);
    }
  });

  // A 4 x 3 PNG, and a JPEG made by poppler from a preview PDF.
  function png(): Buffer {
    const image = new PNG({ width: 4, height: 3 });
    image.data.fill(200);
    return PNG.sync.write(image);
  }

  function jpeg(pdf: Buffer): Buffer {
    const dir = mkdtempSync(join(tmpdir(), 'studio-jpeg-'));
    try {
      writeFileSync(join(dir, 'in.pdf'), pdf);
      execFileSync('pdftoppm', ['-r', '10', '-jpeg', '-singlefile', join(dir, 'in.pdf'), join(dir, 'out')]);
      return readFileSync(join(dir, 'out.jpg'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('uploads: PNG and JPEG come back as data URLs; broken, disguised, huge or fake files get a clear message', async () => {
    const { tenant, client } = await signedIn();
    const id = await newDraft(client, 'minimal-modern');
    const url = `/dashboard/templates/${id}/uploads`;
    const before = await t.deps.services.templates.working(tenant.accountId, id);
    const upload = async (name: string, content: Buffer, kind = 'image') => {
      await client.get(`/dashboard/templates/${id}/edit`);
      return client.upload(url, { kind }, { name, content });
    };

    const ok = await upload('logo.png', png());
    assert.equal(ok.statusCode, 200, ok.body);
    const image = ok.json<{ src: string; width: number; height: number }>();
    assert.deepEqual([image.src.slice(0, 22), image.width, image.height], ['data:image/png;base64,', 4, 3]);
    const photo = jpeg((await client.get(`/dashboard/templates/${id}/preview.pdf`)).rawPayload);
    const okJpeg = await upload('photo.jpg', photo);
    assert.equal(okJpeg.statusCode, 200, okJpeg.body);
    assert.match(okJpeg.json().src, /^data:image\/jpeg;base64,/);
    // A font comes back with the family and weight it says it has (the studio names it after them).
    for (const [face, bold] of [
      ['dejavu-sans', false],
      ['dejavu-sans-bold', true],
    ] as const) {
      const font = await upload('any-name.ttf', readFileSync(bundledFacePath(bundledFace(face))), 'font');
      assert.equal(font.statusCode, 200, font.body);
      const answer = font.json<{ src: string; family: string; bold: boolean }>();
      assert.deepEqual(
        [answer.src.slice(0, 21), answer.family, answer.bold],
        ['data:font/ttf;base64,', 'DejaVu Sans', bold],
      );
    }

    const broken = png();
    broken[broken.length - 20]! ^= 0xff; // inside the IDAT chunk: its CRC no longer matches
    const refusals: [string, Buffer, RegExp, number, string?][] = [
      [
        'broken.png',
        broken,
        /The PNG image cannot be used: it is a damaged PNG image \(the IDAT chunk fails its CRC check\)/,
        422,
      ],
      [
        'drawing.png',
        Buffer.from(
          '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
        ),
        /not a PNG or JPEG image: its content is an SVG drawing, whatever its name says/,
        422,
      ],
      [
        'page.png',
        Buffer.from('<!doctype html><script>alert(1)</script>'),
        /its content is HTML or XML text/,
        422,
      ],
      [
        'huge.png',
        Buffer.concat([png(), Buffer.alloc(3 * 1024 * 1024)]),
        /The upload is too large: an image or font of at most 2 MiB/,
        413,
      ],
      [
        'enormous.png',
        Buffer.concat([png(), Buffer.alloc(30 * 1024 * 1024)]),
        /The upload is too large: a file of at most 20 MiB/,
        413,
      ],
      [
        'brand.ttf',
        Buffer.from('this is not a font at all'),
        /The file is not a font \(TTF or OTF\)/,
        422,
        'font',
      ],
      [
        'brand.ttf',
        Buffer.concat([Buffer.from([0, 1, 0, 0]), Buffer.alloc(64)]),
        /The font cannot be used/,
        422,
        'font',
      ],
    ];
    for (const [name, content, message, status, kind] of refusals) {
      const res = await upload(name, content, kind);
      assert.equal(res.statusCode, status, `${name}: ${res.body.slice(0, 300)}`);
      assert.match(res.headers['content-type'] as string, /^text\/html/);
      assert.match(res.body, message, name);
    }
    // Nothing changed.
    const after = await t.deps.services.templates.working(tenant.accountId, id);
    assert.deepEqual([after.latestVersion, after.design], [before.latestVersion, before.design]);
  });

  it('Download preview PDF prints what an issue with the same values freezes, but the code', async () => {
    const { tenant, client } = await signedIn();
    const values = { name: 'Zoë Ångström', course: 'Safe Lifting', hours: '12' };
    const issued = await t.app.inject({
      method: 'POST',
      url: '/api/v1/certificates',
      headers: tenant.auth,
      payload: {
        templateId: tenant.templateId,
        recipient: { name: values.name, email: 'z@example.com', data: { course: values.course, hours: 12 } },
      },
    });
    const certificate = issued.json().data as { id: string; uniqueCode: string };
    const frozen = await t.app.inject({
      method: 'GET',
      url: `/api/v1/certificates/${certificate.id}/pdf`,
      headers: tenant.auth,
    });
    const preview = await client.get(
      `/dashboard/templates/${tenant.templateId}/preview.pdf?download=1&recipientName=${encodeURIComponent(values.name)}` +
        `&data.course=${encodeURIComponent(values.course)}&data.hours=${values.hours}`,
    );
    const sampleCode = '7K3M9Q2XRB4D8F1H';
    assert.equal(
      pdfText(frozen.rawPayload).replaceAll(certificate.uniqueCode, sampleCode),
      pdfText(preview.rawPayload),
    );
  });

  it('pdf.js and the studio script come from the service, cached, as JavaScript; the editor CSP has nothing unsafe', async () => {
    const { client } = await signedIn();
    const id = await newDraft(client);
    const editor = await client.get(`/dashboard/templates/${id}/edit`);
    const csp = editor.headers['content-security-policy'] as string;
    assert.doesNotMatch(csp, /unsafe|\*|https?:/);
    assert.match(csp, /script-src 'self'/);
    const scripts = [
      // The html tag writes / in attribute values as &#x2F;.
      ...editor.body
        .replaceAll('&#x2F;', '/')
        .matchAll(/(?:src|data-pdfjs(?:-worker)?)="(\/dashboard\/assets\/[^"]+)"/g),
    ].map((m) => m[1]!);
    assert.equal(scripts.filter((u) => u.includes('/pdfjs/')).length, 2, scripts.join(' '));
    for (const url of scripts) {
      const res = await client.get(url);
      assert.equal(res.statusCode, 200, url);
      if (url.endsWith('.css') || url.includes('.css?')) continue;
      assert.match(res.headers['content-type'] as string, /^text\/javascript/, url);
      assert.match(res.headers['cache-control'] as string, /immutable/, url);
    }
    assert.doesNotMatch(editor.body, /<script>|\son[a-z]+="/, 'no inline script or handler');
  });
});
