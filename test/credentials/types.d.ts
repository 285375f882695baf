// The reference verifiers ship no types; the tests use a small part of each.
declare module '@digitalbazaar/vc' {
  export function verifyCredential(
    opts: Record<string, unknown>,
  ): Promise<{ verified: boolean; error?: unknown }>;
  export function issue(opts: Record<string, unknown>): Promise<Record<string, unknown>>;
}
declare module '@digitalbazaar/data-integrity' {
  export class DataIntegrityProof {
    constructor(opts: Record<string, unknown>);
  }
}
declare module '@digitalbazaar/eddsa-rdfc-2022-cryptosuite' {
  export const cryptosuite: unknown;
}
declare module '@digitalbazaar/ed25519-multikey' {
  export function from(
    key: Record<string, unknown>,
  ): Promise<{ verifier(): { verify(o: { data: Uint8Array; signature: Uint8Array }): Promise<boolean> } }>;
}
declare module '@digitalbazaar/vc-bitstring-status-list' {
  export function checkStatus(opts: Record<string, unknown>): Promise<{ verified: boolean; error?: unknown }>;
}
declare module '@digitalbazaar/vc' {
  export function createPresentation(opts: Record<string, unknown>): Record<string, unknown>;
  export function signPresentation(opts: Record<string, unknown>): Promise<Record<string, unknown>>;
}
declare module '@digitalbazaar/ed25519-multikey' {
  export function generate(opts?: Record<string, unknown>): Promise<{
    id?: string;
    controller?: string;
    publicKeyMultibase: string;
    signer(): unknown;
  }>;
}
