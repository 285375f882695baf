// The holder's key pair of the wallet-side tests (digitalbazaar's Ed25519 Multikey), in the part
// the tests use.
declare module '@digitalbazaar/ed25519-multikey' {
  export function generate(opts?: Record<string, unknown>): Promise<{
    publicKeyMultibase: string;
    signer(): { sign(o: { data: Uint8Array }): Promise<Uint8Array> };
  }>;
}
