import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bakePng, bakeSvg, OPENBADGES_NAMESPACE } from '../../src/modules/wallet/badge-baking.js';
import { defaultBadgeSvg, sealLines } from '../../src/modules/wallet/default-badge.js';
import { safeSvg, SvgRefusal } from '../../src/platform/svg/safe-svg.js';
import { chunk, png } from '../helpers/hostile-files.js';
import { bakedCredentials, pngChunks } from './badge-support.js';

// Open Badges 3.0 baking as pure functions (issue 31), read back by a PNG chunk parser written
// here (each chunk's length and CRC checked) and, for SVG, by the rules of XML. The safe-SVG
// rebuild, hostile drawing by hostile drawing. The HTTP side is in badges-routes.test.ts.

const credential = Buffer.from(
  JSON.stringify({
    '@context': ['https://www.w3.org/ns/credentials/v2'],
    type: ['VerifiableCredential', 'OpenBadgeCredential'],
    name: 'Émile "]]>" <Zoë> & co — 学习',
  }),
  'utf8',
);

describe('PNG baking', () => {
  it('puts one uncompressed openbadgecredential iTXt before IEND, the credential byte for byte', () => {
    const image = png({ width: 4, height: 4 });
    const baked = bakePng(image, credential);
    const chunks = pngChunks(baked);
    assert.deepEqual(
      chunks.map((c) => c.type),
      ['IHDR', 'IDAT', 'iTXt', 'IEND'],
    );
    const found = bakedCredentials(baked);
    assert.equal(found.length, 1);
    assert.ok(found[0]!.equals(credential));
  });

  it('replaces a credential baked before, and keeps every other chunk', () => {
    const text = chunk('tEXt', Buffer.from('Comment\0hello'));
    const image = png({ width: 2, height: 2, extra: [text] });
    const once = bakePng(image, Buffer.from('{"old":true}'));
    const twice = bakePng(once, credential);
    const found = bakedCredentials(twice);
    assert.equal(found.length, 1);
    assert.ok(found[0]!.equals(credential));
    assert.ok(
      pngChunks(twice).some((c) => c.type === 'tEXt' && c.body.toString('latin1') === 'Comment\0hello'),
    );
  });

  it('refuses what is not a whole PNG', () => {
    assert.throws(() => bakePng(Buffer.from('GIF89a'), credential), /not a PNG/);
    const image = png({ width: 2, height: 2 });
    assert.throws(() => bakePng(image.subarray(0, image.length - 12), credential), /IEND/);
  });
});

describe('SVG baking', () => {
  it('adds the openbadges namespace on the root and the credential as its first child (CDATA)', () => {
    const baked = bakeSvg(
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="10" height="10"/></svg>',
      credential.toString('utf8'),
    );
    assert.match(
      baked,
      new RegExp(
        `^<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10" xmlns:openbadges="${OPENBADGES_NAMESPACE}"><openbadges:credential><!\\[CDATA\\[`,
      ),
    );
    assert.match(baked, /<\/openbadges:credential><rect width="10" height="10"\/><\/svg>$/);
    // "]]>" inside the JSON is split across two sections.
    assert.ok(baked.includes(']]]]><![CDATA[>'));
  });

  it('replaces a credential baked before; a self-closing root gets its end tag', () => {
    const once = bakeSvg('<svg xmlns="http://www.w3.org/2000/svg"/>', '{"old":true}');
    assert.match(once, /<\/openbadges:credential><\/svg>$/);
    const twice = bakeSvg(once, '{"new":true}');
    assert.equal(twice.match(/<openbadges:credential>/g)?.length, 1);
    assert.equal(twice.match(/xmlns:openbadges=/g)?.length, 1);
    assert.ok(twice.includes('{"new":true}') && !twice.includes('old'));
  });
});

describe('the safe SVG rebuild', () => {
  const svg = (inner: string, attrs = '') =>
    Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg"${attrs}>${inner}</svg>`);
  const refused = (bytes: Buffer | string, why: RegExp) =>
    assert.throws(
      () => safeSvg(Buffer.from(bytes)),
      (err: unknown) => err instanceof SvgRefusal && why.test(err.message),
      String(bytes).slice(0, 80),
    );

  it('refuses scripts, event attributes, foreignObject, animations and outside references, naming them', () => {
    refused(svg('<script>alert(1)</script>'), /script/);
    refused(svg('<rect/>', ' onload="alert(1)"'), /event attribute \(onload on <svg>\)/);
    refused(svg('<rect onClick="x()"/>'), /event attribute \(onClick/);
    refused(
      svg('<foreignObject><div xmlns="http://www.w3.org/1999/xhtml">hi</div></foreignObject>'),
      /foreignObject/,
    );
    refused(svg('<a><set attributeName="href" to="javascript:alert(1)"/></a>'), /animation \(<set>\)/);
    refused(svg('<use href="https://evil.test/x.svg#a"/>'), /outside the file \(href="https:\/\/evil/);
    refused(
      svg('<image xlink:href="http://evil.test/p.png"/>', ' xmlns:xlink="http://www.w3.org/1999/xlink"'),
      /outside the file/,
    );
    refused(svg('<a href="javascript:alert(1)"><rect/></a>'), /outside the file/);
    refused(svg('<image href="data:image/svg+xml;base64,PHN2Zy8+"/>'), /outside the file/);
    refused(svg('<rect style="fill: url(https://evil.test/a)"/>'), /url\(https:\/\/evil/);
    refused(svg('<rect fill="url(//evil.test/#a)"/>'), /outside the file/);
    refused(svg(`<rect style="background: image-set('https://evil.test/a.png' 1x)"/>`), /load other files/);
    refused(svg('<style>@font-face { font-family: x; src: local(x) }</style>'), /load other files/);
    refused(svg('<style>@import "https://evil.test/a.css";</style>'), /@import/);
    refused(svg('<style>rect { background: u\\72l(x) }</style>'), /escapes/);
    refused(svg('<g xmlns="http://www.w3.org/1999/xhtml"><rect/></g>'), /not SVG/);
    refused(svg('<x:script xmlns:x="http://www.w3.org/2000/svg"/>'), /script/);
  });

  it('refuses DOCTYPEs, unknown entities and processing instructions (no entity expansion)', () => {
    const lol =
      '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>' +
      '<svg xmlns="http://www.w3.org/2000/svg"><text>&b;</text></svg>';
    refused(lol, /DOCTYPE/);
    refused(svg('<text>&xxe;</text>'), /entity &xxe;/);
    refused(`<?xml-stylesheet href="https://evil.test/a.css"?>${svg('<rect/>')}`, /processing instruction/);
    refused(svg('<rect/><?php echo 1 ?>'), /processing instruction/);
  });

  it('refuses what is not a whole SVG, and files past 512 KB', () => {
    refused('<html><body/></html>', /root element is <html>/);
    refused('<svg xmlns="http://www.w3.org/2000/svg"><g></svg>', /well-formed/);
    refused('<svg xmlns="http://www.w3.org/2000/svg"><g>', /cut short/);
    refused(svg('<rect/>') + '<svg/>', /after its <svg>/);
    refused(Buffer.from([0x3c, 0x73, 0x76, 0x67, 0xff, 0xfe]), /UTF-8/);
    refused(svg(`<desc>${'a'.repeat(512 * 1024)}</desc>`), /at most 512 KB/);
    refused(svg('<g>'.repeat(70) + '</g>'.repeat(70)), /deep/);
  });

  it("keeps the drawing, drops editors' metadata and comments, and escapes what it writes", () => {
    const input = Buffer.from(
      '\uFEFF<?xml version="1.0" encoding="UTF-8"?>\n<!-- made by hand -->\n' +
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape" ' +
        'xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 100 100" inkscape:version="1.2">' +
        '<metadata><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/></metadata>' +
        '<defs><linearGradient id="g"><stop offset="0" stop-color="#fff"/></linearGradient></defs>' +
        '<circle cx="50" cy="50" r="40" fill="url(#g)" data-x="1"/>' +
        '<use xlink:href="#g"/><text x="5" y="20">A &amp; B &lt; C &#x263A;</text>' +
        '<style><![CDATA[ circle { stroke: #000 } ]]></style></svg>',
    );
    const { svg: out, images } = safeSvg(input);
    assert.deepEqual(images, []);
    assert.equal(
      out,
      '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 100 100">' +
        '<defs><linearGradient id="g"><stop offset="0" stop-color="#fff"/></linearGradient></defs>' +
        '<circle cx="50" cy="50" r="40" fill="url(#g)"/><use xlink:href="#g"/>' +
        '<text x="5" y="20">A &amp; B &lt; C ☺</text><style> circle { stroke: #000 } </style></svg>',
    );
    // Its own output is taken again unchanged.
    assert.equal(safeSvg(Buffer.from(out)).svg, out);
  });

  it('drops elements it does not know (XML names are case-sensitive: <SCRIPT> is no script)', () => {
    assert.equal(
      safeSvg(svg('<g><SCRIPT>x</SCRIPT><rect/></g>')).svg,
      `<svg xmlns="http://www.w3.org/2000/svg"><g><rect/></g></svg>`,
    );
  });

  it('lists the PNG and JPEG images it embeds, for the caller to check', () => {
    const image = png({ width: 2, height: 2 }).toString('base64');
    const { images } = safeSvg(svg(`<image width="2" height="2" href="data:image/png;base64,${image}"/>`));
    assert.deepEqual(images, [`data:image/png;base64,${image}`]);
  });
});

describe('the default badge', () => {
  it("is a seal drawn in the design's colours with the name, escaped, and passes the safe rebuild", () => {
    const seal = defaultBadgeSvg({
      name: 'Safety <First> & "Always" Training Programme 2026',
      texts: [
        { color: '#000000', size: 12 },
        { color: '#7A1F3D', size: 40 },
      ],
      background: '#FBF8F1',
    });
    assert.ok(seal.includes('fill="#7A1F3D"') && seal.includes('fill="#FBF8F1"'));
    assert.ok(seal.includes('Safety &lt;First&gt; &amp;'));
    assert.equal(safeSvg(Buffer.from(seal)).svg.length > 0, true);
    assert.deepEqual(sealLines('Introduction to Machine Learning'), ['Introduction to', 'Machine Learning']);
    assert.equal(sealLines('a b c d e f g h i j k l m n o p q r s t u v w x y z a b c d e f g h').length, 3);
  });
});
