import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import * as pkijs from 'pkijs';

// Reads the signing certificate, its issuers and its private key from a PKCS#12 (.p12, .pfx) file,
// as exported by a certificate authority or by `openssl pkcs12 -export` (PBES2 with AES, the
// default of OpenSSL 3). Files in the legacy encryption (RC2 and triple DES) are refused with the
// command that converts them.

const KEY_BAG = '1.2.840.113549.1.12.10.1.1';
const SHROUDED_KEY_BAG = '1.2.840.113549.1.12.10.1.2';
const CERT_BAG = '1.2.840.113549.1.12.10.1.3';

export class Pkcs12Error extends Error {}

export interface SigningIdentity {
  certificate: Buffer;
  /** The issuers' certificates, from the signer's issuer upwards. */
  chain: Buffer[];
  privateKey: KeyObject;
}

const LEGACY_HINT =
  'it uses the legacy PKCS#12 encryption (RC2 or triple DES); convert it first with ' +
  '`openssl pkcs12 -legacy -in OLD.p12 -nodes | openssl pkcs12 -export -out NEW.p12`';

/** A PKCS#12 file holds a key and a few certificates: a few kilobytes; more is refused unread. */
export const PKCS12_MAX_BYTES = 1024 * 1024;

export async function readPkcs12(file: Buffer, passphrase: string): Promise<SigningIdentity> {
  if (file.length > PKCS12_MAX_BYTES) {
    throw new Pkcs12Error(
      `the file is ${(file.length / 1048576).toFixed(1)} MiB: a PKCS#12 file may be at most 1 MiB`,
    );
  }
  const password = new TextEncoder().encode(passphrase).buffer;
  const keys: Buffer[] = [];
  const certificates: Buffer[] = [];
  try {
    const pfx = pkijs.PFX.fromBER(new Uint8Array(file).buffer);
    await pfx.parseInternalValues({ password, checkIntegrity: true });
    const safe = pfx.parsedValue?.authenticatedSafe;
    if (!safe) throw new Pkcs12Error('the file holds no authenticated safe');
    await safe.parseInternalValues({ safeContents: safe.safeContents.map(() => ({ password })) });
    for (const contents of safe.parsedValue?.safeContents ?? []) {
      for (const bag of contents.value.safeBags) {
        if (bag.bagId === SHROUDED_KEY_BAG) {
          // parseInternalValues is public in pkijs's JavaScript, protected in its types.
          const shrouded = bag.bagValue as unknown as {
            parseInternalValues(p: { password: ArrayBuffer }): Promise<void>;
            parsedValue?: pkijs.PrivateKeyInfo;
          };
          await shrouded.parseInternalValues({ password });
          keys.push(Buffer.from(shrouded.parsedValue!.toSchema().toBER()));
        } else if (bag.bagId === KEY_BAG) {
          keys.push(Buffer.from((bag.bagValue as pkijs.PrivateKeyInfo).toSchema().toBER()));
        } else if (bag.bagId === CERT_BAG) {
          const cert = (bag.bagValue as pkijs.CertBag).parsedValue;
          if (cert instanceof pkijs.Certificate) certificates.push(Buffer.from(cert.toSchema().toBER()));
        }
      }
    }
  } catch (err) {
    if (err instanceof Pkcs12Error) throw err;
    const message = (err as Error).message;
    if (/1\.2\.840\.113549\.1\.12\.1\./.test(message))
      throw new Pkcs12Error(`the file cannot be read: ${LEGACY_HINT}`);
    if (/integrity|mac|password/i.test(message)) {
      throw new Pkcs12Error('the passphrase does not open the file (or the file is damaged)');
    }
    throw new Pkcs12Error(`the file is not a PKCS#12 file that can be read: ${message}`);
  }
  if (keys.length !== 1) throw new Pkcs12Error(`the file must hold one private key, not ${keys.length}`);
  const privateKey = createPrivateKey({ key: keys[0]!, format: 'der', type: 'pkcs8' });
  if (privateKey.asymmetricKeyType !== 'ec' && privateKey.asymmetricKeyType !== 'rsa') {
    throw new Pkcs12Error(
      `the private key must be ECDSA or RSA, not ${String(privateKey.asymmetricKeyType)}`,
    );
  }
  const parsed = certificates.map((der) => ({ der, x509: new X509Certificate(der) }));
  const leaf = parsed.find((c) => c.x509.checkPrivateKey(privateKey));
  if (!leaf) throw new Pkcs12Error('no certificate in the file matches its private key');
  if (new Date(leaf.x509.validTo).getTime() <= Date.now()) {
    throw new Pkcs12Error(`the certificate expired on ${new Date(leaf.x509.validTo).toISOString()}`);
  }
  const chain: Buffer[] = [];
  let at = leaf;
  for (;;) {
    const issuer = parsed.find((c) => c !== at && !chain.includes(c.der) && at.x509.checkIssued(c.x509));
    if (!issuer || issuer === leaf) break;
    chain.push(issuer.der);
    at = issuer;
  }
  return { certificate: leaf.der, chain, privateKey };
}
