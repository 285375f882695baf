// Multibase base58btc ('z' prefix) and the multicodec header of Ed25519 public keys, as Data
// Integrity proofs (proofValue) and Multikey verification methods (publicKeyMultibase) write them.

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const ED25519_PUB_HEADER = Uint8Array.of(0xed, 0x01);

export function base58btc(bytes: Uint8Array): string {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  // Base-256 to base-58 by repeated division, over little-endian digits.
  const digits: number[] = [];
  for (let i = zeros; i < bytes.length; i++) {
    let carry = bytes[i]!;
    for (let j = 0; j < digits.length; j++) {
      carry += digits[j]! << 8;
      digits[j] = carry % 58;
      carry = (carry / 58) | 0;
    }
    while (carry > 0) {
      digits.push(carry % 58);
      carry = (carry / 58) | 0;
    }
  }
  let out = '1'.repeat(zeros);
  for (let i = digits.length - 1; i >= 0; i--) out += ALPHABET[digits[i]!];
  return out;
}

export function fromBase58btc(text: string): Uint8Array {
  let zeros = 0;
  while (zeros < text.length && text[zeros] === '1') zeros++;
  const bytes: number[] = [];
  for (let i = zeros; i < text.length; i++) {
    let carry = ALPHABET.indexOf(text[i]!);
    if (carry < 0) throw new Error(`not base58btc: ${text[i]}`);
    for (let j = 0; j < bytes.length; j++) {
      carry += bytes[j]! * 58;
      bytes[j] = carry & 0xff;
      carry >>= 8;
    }
    while (carry > 0) {
      bytes.push(carry & 0xff);
      carry >>= 8;
    }
  }
  return Uint8Array.from([...new Array<number>(zeros).fill(0), ...bytes.reverse()]);
}

export function multibase58(bytes: Uint8Array): string {
  return `z${base58btc(bytes)}`;
}

// The raw 32-byte Ed25519 public key as a Multikey's publicKeyMultibase: z6Mk...
export function ed25519PublicKeyMultibase(raw: Uint8Array): string {
  return multibase58(Uint8Array.from([...ED25519_PUB_HEADER, ...raw]));
}
