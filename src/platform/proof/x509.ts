import { createHash, randomBytes, sign, type KeyObject } from 'node:crypto';
import {
  algorithm,
  bitString,
  boolean,
  children,
  explicit,
  integer,
  octetString,
  oid,
  read,
  sequence,
  setOf,
  time,
  tlv,
  utf8String,
} from './der.js';

// X.509 certificates for PDF signatures: a self-signed one made for an account (ECDSA P-256), and
// the few fields of any certificate that a CMS signature names (issuer and serial number).

export const ECDSA_WITH_SHA256 = '1.2.840.10045.4.3.2';
export const SHA256_WITH_RSA = '1.2.840.113549.1.1.11';
const COMMON_NAME = '2.5.4.3';
const ORGANIZATION = '2.5.4.10';

/** The signature algorithm (as an AlgorithmIdentifier) and signer of a private key. */
export function signatureScheme(key: KeyObject): { algorithm: Buffer; sign: (data: Buffer) => Buffer } {
  if (key.asymmetricKeyType === 'ec') {
    return {
      algorithm: algorithm(ECDSA_WITH_SHA256),
      sign: (data) => sign('sha256', data, { key, dsaEncoding: 'der' }),
    };
  }
  if (key.asymmetricKeyType === 'rsa') {
    return { algorithm: algorithm(SHA256_WITH_RSA, true), sign: (data) => sign('sha256', data, key) };
  }
  throw new Error(`PDF signing keys must be ECDSA or RSA, not ${String(key.asymmetricKeyType)}`);
}

function name(commonName: string): Buffer {
  return sequence(
    setOf(sequence(oid(COMMON_NAME), utf8String(commonName))),
    setOf(sequence(oid(ORGANIZATION), utf8String(commonName))),
  );
}

/**
 * A self-signed certificate for `publicKey` (subject and issuer the account's name), valid from
 * `notBefore` with no well-defined end (RFC 5280: 99991231235959Z), for signing documents only.
 */
export function selfSignedCertificate(opts: {
  commonName: string;
  publicKey: KeyObject;
  privateKey: KeyObject;
  notBefore: Date;
  /** Default: no well-defined end. */
  notAfter?: Date;
}): Buffer {
  const spki = opts.publicKey.export({ type: 'spki', format: 'der' });
  const subjectPublicKey = children(read(spki).contents)[1]!.contents.subarray(1);
  const keyId = createHash('sha1').update(subjectPublicKey).digest();
  const scheme = signatureScheme(opts.privateKey);
  const subject = name(opts.commonName);
  const extension = (dotted: string, critical: boolean, value: Buffer) =>
    sequence(oid(dotted), ...(critical ? [boolean(true)] : []), octetString(value));
  const serial = randomBytes(16);
  serial[0]! &= 0x7f;
  const tbs = sequence(
    explicit(0, integer(2)),
    integer(serial),
    scheme.algorithm,
    subject,
    sequence(time(opts.notBefore), time(opts.notAfter ?? new Date('9999-12-31T23:59:59Z'))),
    subject,
    spki,
    explicit(
      3,
      sequence(
        extension('2.5.29.19', true, sequence()), // basicConstraints: not a CA
        // keyUsage: digitalSignature and nonRepudiation (6 unused bits)
        extension('2.5.29.15', true, tlv(0x03, Buffer.from([0x06, 0xc0]))),
        extension('2.5.29.14', false, octetString(keyId)), // subjectKeyIdentifier
      ),
    ),
  );
  return sequence(tbs, scheme.algorithm, bitString(scheme.sign(tbs)));
}

/** The issuer Name and serialNumber of a DER certificate, as their encodings. */
export function issuerAndSerial(certificate: Buffer): { issuer: Buffer; serial: Buffer } {
  const tbs = children(read(certificate).contents)[0]!;
  const fields = children(tbs.contents);
  const offset = fields[0]!.tag === 0xa0 ? 1 : 0; // version [0] is optional (v1)
  return { serial: fields[offset]!.bytes, issuer: fields[offset + 2]!.bytes };
}
