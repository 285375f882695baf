import { createHash } from 'node:crypto';
import { letOthersIn } from '../platform/event-loop.js';
import type { CmsSigner, TimeStamper } from '../platform/proof/cms.js';
import { pdfDate, PdfWriter } from './pdf-syntax.js';
import { CATALOG, INFO_OBJECT } from './template-compiler.js';
import type { UnsealedPdf } from './render-types.js';

// A sealed PDF carries a file attachment (the certificate's credential) and one invisible
// signature over the whole file (PAdES: /SubFilter /ETSI.CAdES.detached). The worker writes a
// sealable document: its catalog and page refer to six objects from `base` on, and it writes the
// four that never change (form, signature field, names, file specification). Sealing then appends
// the attachment and the signature dictionary, whose /Contents is reserved and filled last, and the
// cross-reference table. One file is built, hashed in one pass (plus the short tail), signed, and
// the signature written into its slot. A sealer (createPdfSealer) seals the documents of an issue
// with a CMS signer (platform/proof/cms.ts), time-stamped when a time-stamp authority is given.

export type { UnsealedPdf };

export const ATTACHMENT_NAME = 'credential.json';

const SIGNATURE_DESCRIPTION = 'Digital signature of the issuer';

const FORM = 0;
const FIELD = 1;
const SIGNATURE = 2;
const NAMES = 3;
const FILESPEC = 4;
const EMBEDDED_FILE = 5;

/** The catalog's entries of a sealable document. */
export function sealCatalogEntries(base: number): string {
  return ` /AcroForm ${base + FORM} 0 R /Names ${base + NAMES} 0 R /AF [${base + FILESPEC} 0 R]`;
}

/** The signature field's widget annotation: the structure tree tags it as a Form element. */
export function sealWidget(base: number): number {
  return base + FIELD;
}

/** The page's entries of a sealable document. */
export function sealPageEntries(base: number): string {
  return ` /Annots [${base + FIELD} 0 R]`;
}

/**
 * The objects of the seal that are the same in every document (the worker writes them). The widget
 * is printable and not hidden, as PDF/A asks of every annotation; of no size, so it needs no
 * appearance; and tagged (a Form element, `structParent` its key in the parent tree), with a
 * description (/TU, /Contents), as PDF/UA asks.
 */
export function writeSealFrame(writer: PdfWriter, base: number, pageId: number, structParent: number): void {
  writer.object(base + FORM, `<< /Fields [${base + FIELD} 0 R] /SigFlags 3 >>`);
  writer.object(
    base + FIELD,
    `<< /Type /Annot /Subtype /Widget /FT /Sig /T (Signature) /TU (${SIGNATURE_DESCRIPTION}) ` +
      `/Contents (${SIGNATURE_DESCRIPTION}) /F 132 /Rect [0 0 0 0] ` +
      `/P ${pageId} 0 R /StructParent ${structParent} /V ${base + SIGNATURE} 0 R >>`,
  );
  writer.object(
    base + NAMES,
    `<< /EmbeddedFiles << /Names [(${ATTACHMENT_NAME}) ${base + FILESPEC} 0 R] >> >>`,
  );
  writer.object(
    base + FILESPEC,
    `<< /Type /Filespec /F (${ATTACHMENT_NAME}) /UF (${ATTACHMENT_NAME}) ` +
      `/Desc (Open Badges 3.0 credential of this certificate, signed by its issuer) ` +
      `/AFRelationship /Data /EF << /F ${base + EMBEDDED_FILE} 0 R >> >>`,
  );
}

export interface SealOptions {
  /** The attached file's bytes (stored as they are, uncompressed: readable in the file). */
  attachment: Buffer;
  signedAt: string; // ISO 8601
  /** Bytes reserved for the CMS signature; sign() must not return more. */
  reserve: number;
  /** The CMS signature (DER) over content whose SHA-256 is `digest`. */
  sign(digest: Buffer): Promise<Buffer>;
}

const RANGE_WIDTH = 10;

/** The final signed file and its SHA-256 (hex). */
export async function sealPdf(
  unsealed: UnsealedPdf,
  opts: SealOptions,
): Promise<{ pdf: Buffer; sha256: string }> {
  const { base } = unsealed;
  const writer = new PdfWriter();
  const offsets = new Map<number, number>();
  for (let id = 0; id < unsealed.offsets.length; id++) {
    const at = unsealed.offsets[id];
    if (at !== undefined) offsets.set(id, at);
  }
  writer.prebuilt(unsealed.body, offsets);
  const date = pdfDate(opts.signedAt);
  writer.stream(
    base + EMBEDDED_FILE,
    `/Type /EmbeddedFile /Subtype /application#2Fvc /Params << /Size ${opts.attachment.length} /ModDate ${date} >>`,
    opts.attachment,
  );
  const placeholder = `[0 ${'0'.repeat(RANGE_WIDTH)} ${'0'.repeat(RANGE_WIDTH)} ${'0'.repeat(RANGE_WIDTH)}]`;
  const head = `<< /Type /Sig /Filter /Adobe.PPKLite /SubFilter /ETSI.CAdES.detached /M ${date} /ByteRange `;
  const signatureAt = writer.position;
  writer.object(base + SIGNATURE, `${head}${placeholder} /Contents <${'0'.repeat(opts.reserve * 2)}> >>`);
  const pdf = writer.finish(CATALOG, INFO_OBJECT, unsealed.fileId);

  const objectHead = `${base + SIGNATURE} 0 obj\n`.length;
  const rangeAt = signatureAt + objectHead + head.length;
  const contentsAt = rangeAt + placeholder.length + ' /Contents '.length; // the '<'
  const afterContents = contentsAt + opts.reserve * 2 + 2; // after the '>'
  const range = `[0 ${contentsAt} ${afterContents} ${pdf.length - afterContents}]`;
  pdf.write(range.padEnd(placeholder.length, ' '), rangeAt, 'latin1');

  // One pass over the body: the copy taken before the tail hashes the whole file afterwards.
  const signed = createHash('sha256').update(pdf.subarray(0, contentsAt));
  const whole = signed.copy();
  const tail = pdf.subarray(afterContents);
  const cms = await opts.sign(signed.update(tail).digest());
  if (cms.length > opts.reserve)
    throw new Error(`the signature (${cms.length} bytes) exceeds its reserved space`);
  pdf.write(cms.toString('hex'), contentsAt + 1, 'latin1');
  const sha256 = whole.update(pdf.subarray(contentsAt, afterContents)).update(tail).digest('hex');
  return { pdf, sha256 };
}

export interface SealItem {
  unsealed: UnsealedPdf;
  /** The attached file's bytes: the certificate's credential. */
  attachment: Buffer;
}

export interface PdfSealer {
  /**
   * Seals the documents of an issue, signed by `signer` at `signedAt` (ISO 8601), in the order of the
   * items. A time-stamp authority that fails (TimeStampError) fails the whole call.
   */
  sealAll(signer: CmsSigner, items: SealItem[], signedAt: string): Promise<{ pdf: Buffer; sha256: string }[]>;
}

// Room in /Contents for a time-stamp token (the TSA's certificates included) until this sealer has
// seen the TSA's tokens: then the largest seen plus a margin. A token that does not fit makes that
// one document be signed again with room for it.
const FIRST_TIME_STAMP_RESERVE = 8_192;
const TIME_STAMP_MARGIN = 512;
// Time-stamp requests of one issue in flight at once.
const TIME_STAMP_CONCURRENCY = 8;

class TokenTooLargeError extends Error {}

/** PAdES B-B seals; B-T (a signature time stamp from `timeStamper`) when one is given. */
export function createPdfSealer(timeStamper?: TimeStamper): PdfSealer {
  let timeStampRoom = FIRST_TIME_STAMP_RESERVE;

  // The time stamp's length is known only once it is there: a token that does not fit the reserved
  // space makes its document be sealed again, with room for it.
  async function stamped(signer: CmsSigner, digest: Buffer, room: number): Promise<Buffer> {
    const cms = await signer.sign(digest, timeStamper);
    const tokenLength = cms.length - signer.maxLength + TIME_STAMP_MARGIN;
    if (tokenLength > timeStampRoom) timeStampRoom = tokenLength;
    if (cms.length > room) throw new TokenTooLargeError();
    return cms;
  }

  async function sealOne(signer: CmsSigner, item: SealItem, signedAt: string) {
    for (let attempt = 0; ; attempt++) {
      const reserve = signer.maxLength + (timeStamper ? timeStampRoom : 0);
      try {
        return await sealPdf(item.unsealed, {
          attachment: item.attachment,
          signedAt,
          reserve,
          sign: (digest) => (timeStamper ? stamped(signer, digest, reserve) : signer.sign(digest)),
        });
      } catch (err) {
        if (!(err instanceof TokenTooLargeError) || attempt > 0) throw err;
      }
    }
  }

  return {
    async sealAll(signer, items, signedAt) {
      const out: { pdf: Buffer; sha256: string }[] = new Array(items.length);
      if (!timeStamper) {
        // CPU only: one after the other, letting other requests in every so often.
        for (let i = 0; i < items.length; i++) {
          await letOthersIn(i);
          out[i] = await sealOne(signer, items[i]!, signedAt);
        }
        return out;
      }
      // Waiting on the time-stamp authority: a few documents at once.
      let next = 0;
      const lane = async () => {
        while (next < items.length) {
          const i = next++;
          out[i] = await sealOne(signer, items[i]!, signedAt);
        }
      };
      await Promise.all(Array.from({ length: Math.min(TIME_STAMP_CONCURRENCY, items.length) }, lane));
      return out;
    },
  };
}
