import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import QRCode from 'qrcode';
import { encodeQr } from '../../src/pdf/qr-encode.js';

// Our QR encoder (byte mode, level M) against the qrcode package with the same settings: the same
// symbol, module by module, for every version (1 to 40), every mask pattern, and texts as the
// certificates carry them. That the symbols decode is qr-decode.test's part.

function theirs(bytes: Buffer, mask: number): { size: number; modules: Buffer } {
  const { modules } = QRCode.create([{ data: bytes, mode: 'byte' }], {
    errorCorrectionLevel: 'M',
    maskPattern: mask as QRCode.QRCodeMaskPattern,
  });
  return { size: modules.size, modules: Buffer.from(modules.data) };
}

function same(bytes: Buffer, mask: number): void {
  const ours = encodeQr(bytes, mask);
  const expected = theirs(bytes, mask);
  assert.equal(ours.size, expected.size, `size for ${bytes.length} bytes, mask ${mask}`);
  assert.ok(
    Buffer.from(ours.modules).equals(expected.modules),
    `modules for ${bytes.length} bytes, mask ${mask}`,
  );
}

describe('QR encoder', () => {
  it('makes the symbol qrcode makes at every length up to version 40, each mask pattern', () => {
    const text = Buffer.from('https://certs.example.com/verify/0123456789ABCDEFGHJKMNPQRSTVWXYZ'.repeat(40));
    const versions = new Set<number>();
    for (let length = 0; length <= 2331; length += length < 120 ? 1 : 23) {
      const bytes = text.subarray(0, length);
      versions.add(encodeQr(bytes, 2).size);
      same(bytes, 2);
      same(bytes, length % 8);
    }
    assert.equal(versions.size, 40, 'every version was made');
  });

  it('makes the same symbols for verification URLs, UTF-8 included', () => {
    const hosts = [
      'https://certs.example.com',
      'http://localhost:3000',
      'https://zertifikate.bücher.example',
    ];
    for (let i = 0; i < 300; i++) {
      let code = '';
      for (let k = 0; k < 16; k++) code += '0123456789ABCDEFGHJKMNPQRSTVWXYZ'[(i * 7 + k * 13 + k * i) % 32];
      same(Buffer.from(`${hosts[i % 3]}/verify/${code}`), 2);
    }
  });

  it('refuses bytes that do not fit version 40', () => {
    assert.throws(() => encodeQr(Buffer.alloc(2332, 0x41), 2), RangeError);
    assert.equal(encodeQr(Buffer.alloc(2331, 0x41), 2).size, 177);
  });
});
