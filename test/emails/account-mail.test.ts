import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';

describe('account mail: sent at once over the mail path', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('writes the message as an .eml on the embedded default, headers sanitised', async () => {
    await t.deps.services.accountMail.send({
      to: 'new.colleague@example.com',
      subject: 'You are invited\r\nBcc: evil@example.com',
      text: 'Open https://certs.test/dashboard/invitations/abc',
      html: '<p>Open <a href="https://certs.test/dashboard/invitations/abc">the link</a></p>',
    });
    const dir = path.join(t.deps.config.dataDir, 'mail');
    const files = (await readdir(dir)).filter((f) => f.endsWith('.eml'));
    assert.equal(files.length, 1);
    const eml = await readFile(path.join(dir, files[0]!), 'utf8');
    assert.match(eml, /^To: new\.colleague@example\.com$/m);
    assert.doesNotMatch(eml, /^Bcc:/m);
    assert.match(eml, /dashboard\/invitations\/abc/);
  });

  it('refuses an address that is not one, and sends nothing', async () => {
    await assert.rejects(
      t.deps.services.accountMail.send({ to: 'a@b.c, d@e.f\r\n', subject: 's', text: 't', html: 'h' }),
    );
  });
});
