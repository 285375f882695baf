import * as vc from '@digitalbazaar/vc';
import * as Ed25519Multikey from '@digitalbazaar/ed25519-multikey';
import { DataIntegrityProof } from '@digitalbazaar/data-integrity';
import { cryptosuite } from '@digitalbazaar/eddsa-rdfc-2022-cryptosuite';
import jsigs from 'jsonld-signatures';
import { multibase58 } from '../../src/platform/proof/multibase.js';
import {
  ED25519_2020_CONTEXT_URL,
  presentationDocumentLoader,
} from '../../src/modules/wallet/presentation-contexts.js';

// A wallet's holder as the digitalbazaar libraries make one: an Ed25519 Multikey whose did:key is
// its DID, able to sign a DIDAuthentication presentation (eddsa-rdfc-2022) as a wallet does.

export interface Holder {
  did: string;
  verificationMethod: string;
  /** Signs a presentation by `holder` (default: this holder's DID) for `challenge` and `domain`. */
  present(opts: { challenge: string; domain: string; holder?: string }): Promise<Record<string, unknown>>;
  /** The same with an Ed25519Signature2020 proof on a VC 1.1 presentation (as LCW signs). */
  present2020(opts: { challenge: string; domain: string }): Promise<Record<string, unknown>>;
}

// The Ed25519Signature2020 suite as digitalbazaar's ed25519-signature-2020 package defines it (not
// among our packages): jsonld-signatures' LinkedDataSignature, the signature multibase base58btc.
class Ed25519Signature2020 extends jsigs.suites.LinkedDataSignature {
  constructor(signer: unknown) {
    super({ type: 'Ed25519Signature2020', signer, contextUrl: ED25519_2020_CONTEXT_URL });
  }
  async sign({ verifyData, proof }: { verifyData: Uint8Array; proof: Record<string, unknown> }) {
    proof.proofValue = multibase58(await this.signer.sign({ data: verifyData }));
    return proof;
  }
}

export async function makeHolder(): Promise<Holder> {
  const key = await Ed25519Multikey.generate();
  const fingerprint = key.publicKeyMultibase;
  const did = `did:key:${fingerprint}`;
  key.id = `${did}#${fingerprint}`;
  key.controller = did;
  return {
    did,
    verificationMethod: key.id,
    async present({ challenge, domain, holder = did }) {
      const presentation = vc.createPresentation({ holder });
      return vc.signPresentation({
        presentation,
        suite: new DataIntegrityProof({ signer: key.signer(), cryptosuite }),
        challenge,
        domain,
        documentLoader: presentationDocumentLoader,
      });
    },
    async present2020({ challenge, domain }) {
      const presentation = {
        '@context': ['https://www.w3.org/2018/credentials/v1', ED25519_2020_CONTEXT_URL],
        type: ['VerifiablePresentation'],
        holder: did,
      };
      return vc.signPresentation({
        presentation,
        suite: new Ed25519Signature2020(key.signer()),
        challenge,
        domain,
        documentLoader: presentationDocumentLoader,
      });
    },
  };
}
