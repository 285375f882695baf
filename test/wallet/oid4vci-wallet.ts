import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import * as Ed25519Multikey from '@digitalbazaar/ed25519-multikey';
import { clientAuthenticationAnonymous, HashAlgorithm, type JwtSigner } from '@openid4vc/oauth2';
import { Openid4vciClient, setGlobalConfig } from '@openid4vc/openid4vci';

// The wallet's side of OID4VCI in the tests: the @openid4vc/openid4vci client (not our code) with a
// holder key of its own: an Ed25519 key from digitalbazaar's Multikey named by its did:key URL, or
// a P-256 key sent as a jwk header. JWTs are signed here with node:crypto.

// The test server is plain http on loopback.
setGlobalConfig({ allowInsecureUrls: true });

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

export interface Holder {
  signer: JwtSigner;
  /** The did:key the holder expects to be named in its credential (undefined for a jwk key). */
  did?: string;
  signJwt(header: Record<string, unknown>, payload: Record<string, unknown>): Promise<string>;
}

export async function ed25519Holder(): Promise<Holder> {
  const pair = await Ed25519Multikey.generate();
  const did = `did:key:${pair.publicKeyMultibase}`;
  const signer = pair.signer() as { sign(o: { data: Uint8Array }): Promise<Uint8Array> };
  return {
    did,
    signer: { method: 'did', didUrl: `${did}#${pair.publicKeyMultibase}`, alg: 'EdDSA' },
    async signJwt(header, payload) {
      const data = `${b64(header)}.${b64(payload)}`;
      const signature = await signer.sign({ data: Buffer.from(data) });
      return `${data}.${Buffer.from(signature).toString('base64url')}`;
    },
  };
}

export function p256Holder(): Holder {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  return {
    signer: { method: 'jwk', publicJwk: { kty: 'EC', crv: 'P-256', x: jwk.x!, y: jwk.y! }, alg: 'ES256' },
    async signJwt(header, payload) {
      const data = `${b64(header)}.${b64(payload)}`;
      const signature = sign('sha256', Buffer.from(data), { key: privateKey, dsaEncoding: 'ieee-p1363' });
      return `${data}.${signature.toString('base64url')}`;
    },
  };
}

export function walletClient(holder: Holder): Openid4vciClient {
  return new Openid4vciClient({
    callbacks: {
      hash: (data, alg) =>
        createHash(
          alg === HashAlgorithm.Sha384 ? 'sha384' : alg === HashAlgorithm.Sha512 ? 'sha512' : 'sha256',
        )
          .update(data)
          .digest(),
      generateRandom: (n) => randomBytes(n),
      clientAuthentication: clientAuthenticationAnonymous(),
      signJwt: async (_signer, { header, payload }) => ({
        jwt: await holder.signJwt(header, payload),
        signerJwk: holder.signer.method === 'jwk' ? holder.signer.publicJwk : { kty: 'OKP' },
      }),
    },
  });
}

/**
 * The wallet's steps up to the credential request for a claim link's token: the offer, the issuer's
 * metadata, the access token, a c_nonce and the key proof. `request()` then asks for the credential
 * (the step the claim bench times).
 */
export async function prepareCredentialRequest(
  base: string,
  token: string,
  holder: Holder,
  configuration: string,
) {
  const wallet = walletClient(holder);
  const link = `openid-credential-offer://?credential_offer_uri=${encodeURIComponent(`${base}/claim/${token}/oid4vci/offer`)}`;
  const offer = await wallet.resolveCredentialOffer(link);
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
  const accessToken = accessTokenResponse.access_token;
  return {
    jwt,
    accessToken,
    request: () =>
      wallet.retrieveCredentials({
        issuerMetadata: metadata,
        accessToken,
        credentialConfigurationId: configuration,
        proofs: { jwt: [jwt] },
      }),
  };
}

/** A key proof made by hand, for the refusals: header and payload as given, signed by `holder`. */
export async function handMadeProof(
  holder: Holder,
  claims: { aud?: string; nonce?: string; iat?: number },
  header: Record<string, unknown> = {},
): Promise<string> {
  const named =
    holder.signer.method === 'did'
      ? { kid: holder.signer.didUrl }
      : holder.signer.method === 'jwk'
        ? { jwk: holder.signer.publicJwk }
        : {};
  return holder.signJwt(
    { typ: 'openid4vci-proof+jwt', alg: holder.signer.alg, ...named, ...header },
    { iat: Math.floor(Date.now() / 1000), ...claims },
  );
}
