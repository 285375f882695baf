import * as vc from '@digitalbazaar/vc';
import * as Ed25519Multikey from '@digitalbazaar/ed25519-multikey';
import { DataIntegrityProof } from '@digitalbazaar/data-integrity';
import { cryptosuite } from '@digitalbazaar/eddsa-rdfc-2022-cryptosuite';
import { staticDocumentLoader } from '../../src/platform/proof/contexts.js';

// A wallet's holder as the digitalbazaar libraries make one: an Ed25519 Multikey whose did:key is
// its DID, able to sign a DIDAuthentication presentation (eddsa-rdfc-2022) as a wallet does.

export interface Holder {
  did: string;
  verificationMethod: string;
  /** Signs a presentation by `holder` (default: this holder's DID) for `challenge` and `domain`. */
  present(opts: { challenge: string; domain: string; holder?: string }): Promise<Record<string, unknown>>;
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
        documentLoader: staticDocumentLoader,
      });
    },
  };
}
