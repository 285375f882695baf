import { createHash, type KeyObject } from 'node:crypto';
import {
  algorithm,
  children,
  explicit,
  implicitConstructed,
  integer,
  octetString,
  oid,
  read,
  readOid,
  sequence,
  setOf,
  tlv,
} from './der.js';
import { issuerAndSerial, signatureScheme } from './x509.js';

// CMS SignedData for PDF signatures, the PAdES baseline way (ETSI EN 319 142-1, B-B; B-T with a
// signature time stamp): detached content, SHA-256, signed attributes content-type,
// message-digest and signing-certificate-v2, no signing-time attribute (the PDF's /M says when).
// Everything but the digest, the signature value and the time stamp is worked out once per
// signing certificate, so a signature costs one private-key operation and some concatenation.

const SHA256 = '2.16.840.1.101.3.4.2.1';
const ID_DATA = '1.2.840.113549.1.7.1';
const ID_SIGNED_DATA = '1.2.840.113549.1.7.2';
const CONTENT_TYPE = '1.2.840.113549.1.9.3';
const MESSAGE_DIGEST = '1.2.840.113549.1.9.4';
const SIGNING_CERTIFICATE_V2 = '1.2.840.113549.1.9.16.2.47';
const SIGNATURE_TIME_STAMP = '1.2.840.113549.1.9.16.2.14';
const TST_INFO = '1.2.840.113549.1.9.16.1.4';

export interface CmsSigner {
  /** The DER ContentInfo of a signature over content whose SHA-256 is `digest`. */
  sign(digest: Buffer, timeStamp?: TimeStamper): Promise<Buffer>;
  /** An upper bound of sign()'s length without a time stamp. */
  maxLength: number;
}

/** Gets an RFC 3161 time-stamp token (a DER ContentInfo) over the given SHA-256 digest. */
export type TimeStamper = (digest: Buffer) => Promise<Buffer>;

export function createCmsSigner(opts: {
  certificate: Buffer;
  chain: Buffer[];
  privateKey: KeyObject;
}): CmsSigner {
  const scheme = signatureScheme(opts.privateKey);
  const digestAlgorithm = algorithm(SHA256);
  const { issuer, serial } = issuerAndSerial(opts.certificate);
  const contentType = sequence(oid(CONTENT_TYPE), setOf(oid(ID_DATA)));
  // ESSCertIDv2 with the default hash algorithm (SHA-256) left out, as DER requires.
  const certHash = createHash('sha256').update(opts.certificate).digest();
  const signingCertificate = sequence(
    oid(SIGNING_CERTIFICATE_V2),
    setOf(sequence(sequence(sequence(octetString(certHash))))),
  );
  const certificates = tlv(0xa0, ...[opts.certificate, ...opts.chain].sort(Buffer.compare));
  const head = [integer(1), setOf(digestAlgorithm), sequence(oid(ID_DATA)), certificates];
  const sid = sequence(issuer, serial);
  const [version, messageDigest, signedData] = [integer(1), oid(MESSAGE_DIGEST), oid(ID_SIGNED_DATA)];
  const fixedLength = head.reduce((n, b) => n + b.length, 0) + sid.length + contentType.length;

  return {
    maxLength: fixedLength + signingCertificate.length + 1024,
    async sign(digest, timeStamp) {
      const signedAttributes = setOf(
        contentType,
        sequence(messageDigest, setOf(octetString(digest))),
        signingCertificate,
      );
      const signature = scheme.sign(signedAttributes);
      const unsigned: Buffer[] = [];
      if (timeStamp) {
        const token = await timeStamp(createHash('sha256').update(signature).digest());
        unsigned.push(tlv(0xa1, sequence(oid(SIGNATURE_TIME_STAMP), setOf(token))));
      }
      const signerInfo = sequence(
        version,
        sid,
        digestAlgorithm,
        implicitConstructed(0, signedAttributes),
        scheme.algorithm,
        octetString(signature),
        ...unsigned,
      );
      return sequence(signedData, explicit(0, sequence(...head, setOf(signerInfo))));
    },
  };
}

/** An RFC 3161 TimeStampReq for a SHA-256 digest, asking for the TSA's certificate. */
export function timeStampRequest(digest: Buffer, nonce: Buffer): Buffer {
  return sequence(
    integer(1),
    sequence(algorithm(SHA256), octetString(digest)),
    integer(nonce),
    Buffer.from([0x01, 0x01, 0xff]), // certReq TRUE
  );
}

/**
 * The token of an RFC 3161 TimeStampResp, checked: status granted, and the token's TSTInfo stamps
 * `digest` with `nonce`. Throws an Error that says what is wrong otherwise.
 */
export function timeStampToken(response: Buffer, digest: Buffer, nonce: Buffer): Buffer {
  const [status, token] = children(read(response).contents);
  const code = children(status!.contents)[0];
  if (!code || code.tag !== 0x02 || code.contents.length !== 1 || code.contents[0]! > 1) {
    throw new Error('the time-stamp authority refused the request');
  }
  if (!token) throw new Error('the time-stamp response has no token');
  // ContentInfo -> [0] SignedData -> encapContentInfo -> [0] OCTET STRING -> TSTInfo
  const [, signedDataTag] = children(token.contents);
  const signedData = children(read(signedDataTag!.contents).contents);
  const [eContentType, eContent] = children(signedData[2]!.contents);
  if (readOid(eContentType!) !== TST_INFO) throw new Error('the time-stamp token holds no TSTInfo');
  const info = children(read(read(eContent!.contents).contents).contents);
  const imprint = children(info[2]!.contents);
  if (!read(imprint[1]!.bytes).contents.equals(digest)) {
    throw new Error('the time-stamp token stamps another digest');
  }
  const nonceField = info.slice(5).find((e) => e.tag === 0x02);
  if (!nonceField || !nonceField.bytes.equals(integer(nonce))) {
    throw new Error('the time-stamp token does not carry the request nonce');
  }
  return token.bytes;
}
