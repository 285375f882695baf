import { performance } from 'node:perf_hooks';
import { mintClaimToken } from '../src/modules/shared/claim-tokens.js';
import { ed25519Holder, p256Holder, walletClient, type Holder } from '../test/wallet/oid4vci-wallet.js';
import { benchDatabase, issuedAccount, ms, percentile, startServer } from './support.js';

// Claiming into a wallet (issue 31: "claiming costs one signature, at most 5 ms p50"): the real
// server (a child process, the embedded PostgreSQL), a wallet on loopback made with the
// @openid4vc/openid4vci client, one certificate per claim. Timed: the credential request alone (the
// key proof checked, the credential bound to the holder and signed, the claim counted and recorded
// in one transaction), for each format; and proof.signBound alone in this process. The offer, token
// and nonce requests before it are not timed. Usage: node dist/bench/claim.bench.js [claims]

const claims = Number(process.argv[2] ?? 200);
const db = await benchDatabase();
const server = await startServer({ DATABASE_URL: db.databaseUrl, DATA_DIR: db.dataDir });
try {
  const { accountId, certificates } = await issuedAccount(db.deps, claims * 2);
  const offerLink = (token: string) =>
    `openid-credential-offer://?credential_offer_uri=${encodeURIComponent(`${server.base}/claim/${token}/oid4vci/offer`)}`;

  async function claim(certificateId: string, holder: Holder, configuration: string): Promise<number> {
    const token = await mintClaimToken(db.deps.db, certificateId, new Date());
    const wallet = walletClient(holder);
    const offer = await wallet.resolveCredentialOffer(offerLink(token));
    const metadata = await wallet.resolveIssuerMetadata(offer.credential_issuer);
    const { accessTokenResponse } = await wallet.retrievePreAuthorizedCodeAccessTokenFromOffer({
      credentialOffer: offer,
      issuerMetadata: metadata,
    });
    const { c_nonce } = await wallet.requestNonce({ issuerMetadata: metadata });
    const { jwt } = await wallet.createCredentialRequestJwtProof({
      issuerMetadata: metadata,
      credentialConfigurationId: configuration,
      signer: holder.signer,
      nonce: c_nonce,
    });
    const start = performance.now();
    const response = await wallet.retrieveCredentials({
      issuerMetadata: metadata,
      accessToken: accessTokenResponse.access_token,
      credentialConfigurationId: configuration,
      proofs: { jwt: [jwt] },
    });
    const took = performance.now() - start;
    if (!response.credentialResponse.credentials?.length) throw new Error('no credential');
    return took;
  }

  const ldp: number[] = [];
  const sdJwt: number[] = [];
  const holder = await ed25519Holder();
  const jwkHolder = p256Holder();
  // Warm-up: the first claims load the OID4VCI modules and compile the bound credential's shape.
  for (const c of certificates.slice(0, 5)) await claim(c.id, holder, 'OpenBadgeCredential_ldp_vc');
  for (let i = 5; i < claims; i++) {
    ldp.push(await claim(certificates[i]!.id, holder, 'OpenBadgeCredential_ldp_vc'));
    sdJwt.push(await claim(certificates[claims + i]!.id, jwkHolder, 'LearningCredential_sd_jwt'));
  }

  const proof = db.deps.services.proof;
  const alone: number[] = [];
  for (let i = 0; i < claims; i++) {
    const start = performance.now();
    await proof.signBound({
      accountId,
      certificateId: certificates[i]!.id,
      holderDid: holder.did!,
      now: new Date(),
    });
    alone.push(performance.now() - start);
  }

  const line = (label: string, xs: number[]) =>
    `${label}: p50 ${ms(percentile(xs, 50))}, p95 ${ms(percentile(xs, 95))} (${xs.length} claims)`;
  console.log(line('OID4VCI credential request, ldp_vc (Open Badges 3.0, Ed25519 holder)', ldp));
  console.log(line('OID4VCI credential request, dc+sd-jwt (P-256 holder)', sdJwt));
  console.log(line('proof.signBound alone, in process (read the frozen credential, sign)', alone));
  console.log(
    `goal: at most 5 ms p50 per claim: ${percentile(ldp, 50) <= 5 && percentile(sdJwt, 50) <= 5 ? 'met' : 'NOT met'}`,
  );
} finally {
  await server.stop();
  await db.close();
}
