import assert from 'node:assert/strict';
import { crc32 } from 'node:zlib';

// Reading baked badges back as a backpack would (issue 31): a PNG chunk parser of our own.

interface PngChunk {
  type: string;
  body: Buffer;
}

// A PNG's chunks, checked as a reader would: signature, lengths within the file, CRCs, IEND last.
export function pngChunks(file: Buffer): PngChunk[] {
  assert.deepEqual([...file.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const chunks: PngChunk[] = [];
  let at = 8;
  while (at < file.length) {
    const length = file.readUInt32BE(at);
    const type = file.toString('latin1', at + 4, at + 8);
    const body = file.subarray(at + 8, at + 8 + length);
    assert.equal(body.length, length, `${type} within the file`);
    assert.equal(
      file.readUInt32BE(at + 8 + length),
      crc32(body, crc32(Buffer.from(type, 'latin1'))),
      `${type} CRC`,
    );
    chunks.push({ type, body });
    at += 12 + length;
  }
  assert.equal(chunks.at(-1)?.type, 'IEND');
  return chunks;
}

// The baked credentials of a PNG: every iTXt chunk with the OB 3.0 keyword, its fields read back.
export function bakedCredentials(file: Buffer): Buffer[] {
  return pngChunks(file)
    .filter((c) => c.type === 'iTXt')
    .map((c) => {
      const keywordEnd = c.body.indexOf(0);
      const keyword = c.body.toString('latin1', 0, keywordEnd);
      const compressed = c.body[keywordEnd + 1];
      const languageEnd = c.body.indexOf(0, keywordEnd + 3);
      const translatedEnd = c.body.indexOf(0, languageEnd + 1);
      return { keyword, compressed, text: c.body.subarray(translatedEnd + 1) };
    })
    .filter((c) => c.keyword === 'openbadgecredential')
    .map((c) => {
      assert.equal(c.compressed, 0, 'not compressed');
      return c.text;
    });
}
