import { randomBytes } from 'node:crypto';
import type { Db } from '../../platform/db/db.js';
import { ConflictError, NotFoundError, ValidationError } from '../../platform/errors.js';
import { isUniqueCode, uuidv7 } from '../../platform/ids.js';
import { VC_V2 } from '../../platform/proof/contexts.js';
import {
  ClaimTokenGoneError,
  CLAIMS_PER_TOKEN,
  claimTargetOf,
  claimTokenHash,
  isClaimToken,
  resolveClaimToken,
} from '../shared/claim-tokens.js';
import { credentialOfferDeepLink, exchangeUrl } from '../shared/wallet-links.js';
import { enqueueSend } from '../emails/emails.repository.js';
import type { ProofService } from '../proof/proof.service.js';
import { insertExchange, listClaims, recordClaimAtOnce, tokenWithExchange } from './claims.repository.js';
import { readPresentation, verifyPresentation, type PresentationClaim } from './presentation-check.js';
import { claimFacts, walletLinkTarget, type ClaimFacts } from './wallet.repository.js';

// The recipient's wallet (issue 31, decisions 22): the claim page's facts, the VCALM protocols list,
// the VC API exchange (DIDAuthentication, then the credential bound to the holder), the record of
// claims, and "Email me the wallet link". The OID4VCI exchange (oid4vci-*.ts) records its claims
// through recordClaimAtOnce too, so that both protocols count toward the same 5.

export interface ClaimPageView extends ClaimFacts {
  token: string;
  expiresAt: Date;
  claimsLeft: number;
}

export function createWalletService(deps: {
  db: Db;
  proof: ProofService;
  publicBaseUrl: string;
  now: () => Date;
}) {
  const { db, proof, publicBaseUrl } = deps;
  // The domain a presentation must name: the host (and port) of PUBLIC_BASE_URL (docs/wallets.md).
  const domain = new URL(publicBaseUrl).host;

  return {
    domain,

    /** What the claim page shows; NotFoundError (404) or ClaimTokenGoneError (410) otherwise. */
    async claimPage(token: string): Promise<ClaimPageView> {
      const target = await resolveClaimToken(db, token, deps.now());
      const facts = await claimFacts(db, target.certificateId);
      return {
        ...facts,
        token,
        expiresAt: target.expiresAt,
        claimsLeft: CLAIMS_PER_TOKEN - target.claimsUsed,
      };
    },

    /** The VCALM interaction URL's answer: the protocols a wallet may use with this token. */
    async protocols(token: string) {
      await resolveClaimToken(db, token, deps.now());
      return {
        protocols: {
          vcapi: exchangeUrl(publicBaseUrl, token),
          OID4VCI: credentialOfferDeepLink(publicBaseUrl, token),
        },
      };
    },

    /** POST {} at the exchange URL: a DIDAuthentication request with a fresh challenge (15 minutes). */
    async startExchange(token: string) {
      const at = deps.now();
      const target = await resolveClaimToken(db, token, at);
      const challenge = randomBytes(18).toString('base64url');
      await insertExchange(db, { tokenId: target.tokenId, challenge, at });
      return {
        verifiablePresentationRequest: {
          query: [
            {
              type: 'DIDAuthentication',
              acceptedMethods: [{ method: 'key' }],
              acceptedCryptosuites: [
                { cryptosuite: 'eddsa-rdfc-2022' },
                { cryptosuite: 'Ed25519Signature2020' },
              ],
            },
          ],
          challenge,
          domain,
        },
      };
    },

    /**
     * POST { verifiablePresentation } at the exchange URL: the presentation checked (challenge of an
     * open exchange of this token, domain, the holder's own key, signature), then in one transaction
     * the exchange used, the claim counted and recorded; the credential bound to the holder.
     */
    async finishExchange(token: string, body: unknown) {
      const at = deps.now();
      if (!isClaimToken(token)) throw new NotFoundError('Wallet link');
      // The presentation's challenge read ahead, so that the token and its exchange are read at
      // once; the refusals still come in order (token, presentation, exchange).
      const ahead = readableClaim(body);
      const read = await tokenWithExchange(db, {
        tokenSha256: claimTokenHash(token),
        challenge: ahead?.challenge ?? null,
        at,
      });
      const target = claimTargetOf(read?.target, at);
      const claim = ahead ?? readPresentation(body);
      const state = read!.exchange;
      if (state === 'used') throw new ConflictError('This exchange was already completed: start a new one');
      if (state !== 'open') {
        throw new ValidationError(
          [
            {
              path: ['verifiablePresentation', 'proof', 'challenge'],
              message:
                state === 'expired'
                  ? 'This exchange has expired (15 minutes): start a new one'
                  : 'The challenge is not one this exchange gave',
            },
          ],
          'The challenge is not that of an open exchange of this wallet link',
        );
      }
      await verifyPresentation(claim, { domain });
      const credential = await proof.signBound({
        accountId: target.accountId,
        certificateId: target.certificateId,
        holderDid: claim.holder,
        now: at,
      });
      const outcome = await recordClaimAtOnce(db, {
        tokenId: target.tokenId,
        certificateId: target.certificateId,
        accountId: target.accountId,
        at,
        grant: { kind: 'exchange', challenge: claim.challenge },
        holderDid: claim.holder,
        protocol: 'vcapi',
        format: 'ldp_vc',
      });
      if (outcome === 'grant_spent') {
        throw new ConflictError('This exchange was already completed: start a new one');
      }
      if (outcome === 'used_up') throw new ClaimTokenGoneError('used_up');
      return {
        verifiablePresentation: {
          '@context': [VC_V2],
          type: ['VerifiablePresentation'],
          verifiableCredential: [credential],
        },
      };
    },

    /** A certificate's claims, newest first (the dashboard). */
    claims: (accountId: string, certificateId: string) => listClaims(db, accountId, certificateId),

    /**
     * "Email me the wallet link": queues the wallet link email to the certificate's stored address
     * when the certificate is valid; nothing otherwise. The caller answers the same either way.
     */
    async requestWalletLink(code: string): Promise<void> {
      if (!isUniqueCode(code)) return;
      const at = deps.now();
      await db.transaction(async (tx) => {
        const target = await walletLinkTarget(tx, code.toUpperCase(), at);
        if (!target) return;
        await enqueueSend(tx, {
          id: uuidv7(at.getTime()),
          accountId: target.accountId,
          certificateId: target.certificateId,
          recipientEmail: target.recipientEmail,
          now: at,
          kind: 'wallet_link',
        });
      });
    },
  };
}

export type WalletService = ReturnType<typeof createWalletService>;

// The presentation as readPresentation reads it; undefined where it would refuse it.
function readableClaim(body: unknown): PresentationClaim | undefined {
  try {
    return readPresentation(body);
  } catch {
    return undefined;
  }
}
