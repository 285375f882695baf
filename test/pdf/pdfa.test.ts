import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createCmsSigner } from '../../src/platform/proof/cms.js';
import { selfSignedCertificate } from '../../src/platform/proof/x509.js';
import { srgbProfile } from '../../src/pdf/output-intent.js';
import {
  createPdfRenderer,
  createPdfSealer,
  type PdfRenderer,
  type RenderTemplate,
} from '../../src/pdf/pdf-renderer.js';
import { loadDesign, pdfOf, values, withPdfFile } from './pdf-helpers.js';
import { archivalFacts, qpdfJson, resolve, streamData, taggedPages, allNodes } from './tagged-support.js';

// PDF/A-3a (decisions 23): the XMP identifications and document information, the sRGB output
// intent, the file identifier, and, in a sealed certificate, the credential as an associated file
// (application/vc), with the signature still over the whole file. Read back with qpdf, pdf.js and
// poppler (pdfsig, pdfdetach). veraPDF is not run here (docs/pdf.md).

const template: RenderTemplate = { id: 'pdfa-course', version: '1', design: loadDesign('course-completion') };

describe('PDF/A-3a', () => {
  let renderer: PdfRenderer;
  before(() => {
    renderer = createPdfRenderer({ threads: 1 });
  });
  after(() => renderer.close());

  it('carries XMP metadata that identifies PDF/A-3a and PDF/UA-1 and repeats the document information', async () => {
    const pdf = pdfOf((await renderer.render(template, [values()]))[0]);
    const objects = qpdfJson(pdf);
    const { catalog, trailer, info, xmp } = archivalFacts(objects);
    const metadata = objects[`obj:${catalog['/Metadata'] as string}`]!.stream!.dict;
    assert.equal(metadata['/Type'], '/Metadata');
    assert.equal(metadata['/Subtype'], '/XML');
    assert.equal(metadata['/Filter'], undefined, 'uncompressed');
    assert.match(xmp, /<pdfaid:part>3<\/pdfaid:part>/);
    assert.match(xmp, /<pdfaid:conformance>A<\/pdfaid:conformance>/);
    assert.match(xmp, /<pdfuaid:part>1<\/pdfuaid:part>/);
    // The extension schema PDF/A asks for the pdfuaid namespace.
    assert.match(
      xmp,
      /<pdfaSchema:namespaceURI>http:\/\/www.aiim.org\/pdfua\/ns\/id\/<\/pdfaSchema:namespaceURI>/,
    );
    assert.equal(/<rdf:li xml:lang="x-default">([^<]*)</.exec(xmp)?.[1], info['/Title']!.replace(/^u:/, ''));
    assert.equal(info['/CreationDate'], 'u:D:20261121093000Z');
    assert.match(xmp, /<xmp:CreateDate>2026-11-21T09:30:00Z<\/xmp:CreateDate>/);
    assert.equal(info['/Producer'], 'u:certsvc');
    assert.match(xmp, /<pdf:Producer>certsvc<\/pdf:Producer>/);
    const id = trailer['/ID'] as string[];
    assert.equal(id.length, 2);
    // The certificate's code and issue time, as bytes: unique, and the same for the same certificate.
    const v = values();
    // (qpdf shows a byte string that is text as `u:` and the text.)
    assert.equal(id[0], `u:${v.uniqueCode}${v.issuedAt}`);
    assert.equal(id[1], id[0]);
    assert.equal(trailer['/Encrypt'], undefined);
  });

  it('has an sRGB output intent whose ICC profile is a valid RGB display profile', async () => {
    const pdf = pdfOf((await renderer.render(template, [values()]))[0]);
    const objects = qpdfJson(pdf);
    const { intents } = archivalFacts(objects);
    assert.equal(intents.length, 1);
    const intent = intents[0]!;
    assert.equal(intent['/S'], '/GTS_PDFA1');
    assert.equal(intent['/OutputConditionIdentifier'], 'u:sRGB IEC61966-2.1');
    const profileRef = intent['/DestOutputProfile'] as string;
    assert.equal((resolve(objects, profileRef) as { dict: Record<string, unknown> }).dict['/N'], 3);
    const icc = streamData(objects, profileRef);
    assert.ok(icc.equals(srgbProfile()));
    assert.equal(icc.readUInt32BE(0), icc.length);
    assert.equal(icc.toString('latin1', 12, 24), 'mntrRGB XYZ ');
    assert.equal(icc.toString('latin1', 36, 40), 'acsp');
    const tags = new Map<string, Buffer>();
    for (let i = 0; i < icc.readUInt32BE(128); i++) {
      const at = 132 + 12 * i;
      const offset = icc.readUInt32BE(at + 4);
      tags.set(icc.toString('latin1', at, at + 4), icc.subarray(offset, offset + icc.readUInt32BE(at + 8)));
    }
    assert.deepEqual([...tags.keys()].sort(), [
      'bTRC',
      'bXYZ',
      'cprt',
      'desc',
      'gTRC',
      'gXYZ',
      'rTRC',
      'rXYZ',
      'wtpt',
    ]);
    const xyz = (tag: string) => [8, 12, 16].map((o) => tags.get(tag)!.readInt32BE(o) / 65536);
    // The colorants add up to the D50 white point.
    const sum = [0, 1, 2].map((k) => xyz('rXYZ')[k]! + xyz('gXYZ')[k]! + xyz('bXYZ')[k]!);
    sum.forEach((v, k) => assert.ok(Math.abs(v - xyz('wtpt')[k]!) < 0.001, `${v}`));
    // The tone curve: sRGB's at mid grey (0.5 -> 0.214).
    const curve = tags.get('rTRC')!;
    assert.equal(curve.toString('latin1', 0, 4), 'curv');
    const n = curve.readUInt32BE(8);
    const mid = curve.readUInt16BE(12 + 2 * Math.round((n - 1) / 2)) / 65535;
    assert.ok(Math.abs(mid - 0.2158) < 0.002, `${mid}`);
  });

  it('seals a tagged PDF/A-3a file: the credential an associated file of type application/vc, the signature over the whole file', async () => {
    const [outcome] = await renderer.renderSealable(template, [values({ recipientName: 'דוד כהן' })]);
    assert.ok(outcome?.ok);
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const certificate = selfSignedCertificate({
      commonName: 'Tagged Academy',
      publicKey,
      privateKey,
      notBefore: new Date('2026-01-01T00:00:00Z'),
    });
    const signer = createCmsSigner({ certificate, chain: [], privateKey });
    const credential = Buffer.from(JSON.stringify({ type: ['VerifiableCredential'], name: 'דוד כהן' }));
    const [sealed] = await createPdfSealer().sealAll(
      signer,
      [{ unsealed: outcome.unsealed, attachment: credential }],
      '2026-11-21T09:30:00.000Z',
    );
    const pdf = sealed!.pdf;
    assert.equal(sealed!.sha256, createHash('sha256').update(pdf).digest('hex'));

    const objects = qpdfJson(pdf);
    const { catalog, trailer, xmp } = archivalFacts(objects);
    assert.match(xmp, /<pdfaid:part>3<\/pdfaid:part>/);
    assert.ok(trailer['/ID']);
    const af = catalog['/AF'] as string[];
    assert.equal(af.length, 1);
    const spec = resolve(objects, af[0]) as Record<string, unknown>;
    assert.equal(spec['/AFRelationship'], '/Data');
    assert.equal(spec['/UF'], 'u:credential.json');
    const fileRef = (spec['/EF'] as Record<string, string>)['/F']!;
    const file = objects[`obj:${fileRef}`]!.stream!;
    assert.equal(file.dict['/Subtype'], '/application/vc');
    assert.equal((file.dict['/Params'] as Record<string, unknown>)['/ModDate'], 'u:D:20261121093000Z');
    assert.ok(streamData(objects, fileRef).equals(credential));

    withPdfFile(pdf, (path) => {
      const sig = execFileSync('pdfsig', [path], { encoding: 'utf8' });
      assert.match(sig, /Signature is Valid/);
      assert.match(sig, /Total document signed/);
      assert.match(execFileSync('pdfdetach', ['-list', path], { encoding: 'utf8' }), /credential\.json/);
    });
    // The signature widget is tagged: a Form element pointing at it, its key in the parent tree.
    const widget = Object.entries(objects).find(
      ([, o]) => (o.value as Record<string, unknown> | undefined)?.['/FT'] === '/Sig',
    )!;
    const widgetDict = widget[1].value as Record<string, unknown>;
    assert.equal(widgetDict['/F'], 132, 'printed, not hidden (PDF/A)');
    const formEntry = Object.entries(objects).find(
      ([, o]) => (o.value as Record<string, unknown> | undefined)?.['/S'] === '/Form',
    )!;
    const form = formEntry[1].value as Record<string, Record<string, unknown>>;
    assert.equal(form['/K']!['/Obj'], widget[0].replace(/^obj:/, ''));
    const root = resolve(objects, catalog['/StructTreeRoot']) as Record<string, unknown>;
    const nums = (resolve(objects, root['/ParentTree']) as { '/Nums': unknown[] })['/Nums'];
    assert.equal(nums[nums.length - 2], widgetDict['/StructParent']);
    assert.equal(nums[nums.length - 1], formEntry[0].replace(/^obj:/, ''));
    const [page] = await taggedPages(pdf);
    assert.ok(allNodes(page!.tree).some((n) => n.role === 'P' && n.lang === 'he'));
  });
});
