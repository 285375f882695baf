import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EMPTY, html, join, longText, safe, when, type Html } from '../../src/platform/html.js';
import { rowView } from '../../src/platform/row-view.js';

// The one escaping tag of every page and email body (platform/html.ts), and the row->view mapper
// of the services (platform/row-view.ts).

describe('the html tag', () => {
  it('escapes what is interpolated, in text and in attributes, and keeps fragments as they are', () => {
    const name = `<img src=x onerror='alert(1)'> & "Ada"`;
    assert.equal(
      String(html`<p title="${name}">${name}</p>`),
      '<p title="&lt;img src=x onerror=&#39;alert(1)&#39;&gt; &amp; &quot;Ada&quot;">' +
        '&lt;img src=x onerror=&#39;alert(1)&#39;&gt; &amp; &quot;Ada&quot;</p>',
    );
    const bold: Html = html`<b>${'a<b'}</b>`;
    assert.equal(String(html`<p>${bold}</p>`), '<p><b>a&lt;b</b></p>');
    assert.equal(
      String(html`<a href="${'https://x.example/a?b=c&d=e'}">`),
      '<a href="https://x.example/a?b=c&amp;d=e">',
    );
    assert.equal(String(html`${safe('<br>')}${1}${true}`), '<br>1true');
  });

  it('interpolates an array as its items one after the other, each escaped alike', () => {
    assert.equal(
      String(html`<ul>${['<a>', html`<li>b</li>`, [html`<i>c</i>`, 'd&']]}</ul>`),
      '<ul>&lt;a&gt;<li>b</li><i>c</i>d&amp;</ul>',
    );
    assert.equal(String(join([html`<b>1</b>`, '<2>'], '\n')), '<b>1</b>\n&lt;2&gt;');
  });

  it('has the empty fragment, conditional fragments and long texts', () => {
    assert.equal(String(EMPTY), '');
    assert.equal(String(when(false, () => html`<b>no</b>`)), '');
    assert.equal(String(when('yes', () => html`<b>yes</b>`)), '<b>yes</b>');
    const text = `{"a":"<x>&'"}`.repeat(3);
    assert.equal(String(longText(text)), String(html`${text}`));
  });
});

describe('row views', () => {
  it('names the columns given, in their order, in camelCase, timestamps as ISO strings', () => {
    const row = {
      id: 'k1',
      account_id: 'a1',
      created_at: new Date('2026-11-21T10:00:00Z'),
      revoked_at: null as Date | null,
      secret: 'not shown',
    };
    const view = rowView(row, ['id', 'account_id', 'created_at', 'revoked_at']);
    assert.deepEqual(view, {
      id: 'k1',
      accountId: 'a1',
      createdAt: '2026-11-21T10:00:00.000Z',
      revokedAt: null,
    });
    assert.deepEqual(Object.keys(view), ['id', 'accountId', 'createdAt', 'revokedAt']);
  });
});
