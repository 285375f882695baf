import { imageSizeProblem } from './png.js';

// A JPEG's frame header, found by walking its markers (each step moves forward, so a file of
// endless markers costs one pass over its bytes); the size is held to the limits. JPEGs are
// embedded as they are (DCTDecode): nothing is decoded.

export interface JpegFrame {
  width: number;
  height: number;
  components: number;
  /** An Adobe APP14 marker: CMYK samples are stored inverted. */
  adobe: boolean;
}

export function readJpeg(bytes: Buffer): JpegFrame {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) throw new Error('is not a JPEG image');
  let at = 2;
  let adobe = false;
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) throw new Error('is a damaged JPEG image (a marker is missing)');
    const marker = bytes[at + 1]!;
    if (marker === 0xff) {
      at += 1; // fill byte
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2; // markers without a length
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) break; // end of image, or a scan before any frame
    const length = bytes.readUInt16BE(at + 2);
    if (length < 2 || at + 2 + length > bytes.length) {
      throw new Error('is a damaged JPEG image (a segment runs past the end of the file)');
    }
    if (marker === 0xee && bytes.toString('latin1', at + 4, at + 9) === 'Adobe') adobe = true;
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame) {
      if (length < 8) throw new Error('is a damaged JPEG image (its frame header is too short)');
      // Baseline, extended and progressive with 8-bit samples: what PDF viewers draw (DCTDecode).
      if (marker > 0xc2 || bytes[at + 4] !== 8) {
        throw new Error(
          'is a JPEG image of a kind PDF viewers cannot draw (lossless, hierarchical, arithmetic or 12-bit): save it as a baseline JPEG',
        );
      }
      const height = bytes.readUInt16BE(at + 5);
      const width = bytes.readUInt16BE(at + 7);
      const components = bytes[at + 9]!;
      const tooBig = imageSizeProblem(width, height);
      if (tooBig) throw new Error(tooBig);
      if (components !== 1 && components !== 3 && components !== 4) {
        throw new Error('is a JPEG image of an unsupported kind');
      }
      return { width, height, components, adobe };
    }
    at += 2 + length;
  }
  throw new Error('is not a readable JPEG image (no frame header)');
}
