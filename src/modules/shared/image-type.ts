// What an uploaded file is, read from its first bytes, never from its name: the studio's images and
// fonts (templates/uploads.ts) and the organisation's logo (accounts) are told apart the same way.

function startsWith(bytes: Buffer, signature: number[]): boolean {
  return signature.every((b, i) => bytes[i] === b);
}

/** A PNG or a JPEG by its signature; undefined for anything else. */
export function imageType(bytes: Buffer): 'png' | 'jpeg' | undefined {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'jpeg';
  return undefined;
}

// What the bytes are, for a refusal's message: a name says nothing.
export function sniff(bytes: Buffer): string {
  const head = bytes
    .subarray(0, 512)
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart()
    .toLowerCase();
  if (head.startsWith('<svg') || (head.startsWith('<?xml') && head.includes('<svg'))) return 'an SVG drawing';
  if (head.startsWith('<')) return 'HTML or XML text';
  if (startsWith(bytes, [0x47, 0x49, 0x46])) return 'a GIF image';
  if (startsWith(bytes, [0x25, 0x50, 0x44, 0x46])) return 'a PDF document';
  const tag = bytes.subarray(0, 4).toString('latin1');
  if (['\x00\x01\x00\x00', 'true', 'OTTO', 'ttcf', 'wOFF', 'wOF2'].includes(tag)) return 'a font';
  return 'not an image this service knows';
}
