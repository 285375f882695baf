import type { Logger } from 'pino';
import {
  createHash,
  createPrivateKey,
  generateKeyPairSync,
  X509Certificate,
  type KeyObject,
} from 'node:crypto';
import type { Db } from '../../platform/db/db.js';
import { NotFoundError, ServiceUnavailableError } from '../../platform/errors.js';
import { uuidv7 } from '../../platform/ids.js';
import { createCmsSigner, type CmsSigner, type TimeStamper } from '../../platform/proof/cms.js';
import { letOthersIn } from '../../platform/event-loop.js';
import type { KeyVault } from '../../platform/proof/key-vault.js';
import { readPkcs12 } from '../../platform/proof/pkcs12.js';
import { createTimeStamper, TimeStampError } from '../../platform/proof/timestamp.js';
import { selfSignedCertificate } from '../../platform/proof/x509.js';
import { sealPdf, type UnsealedPdf } from '../../pdf/pdf-renderer.js';
import { findAccount } from '../accounts/accounts.repository.js';
import * as certsRepo from './pdf-certificates.repository.js';
import { SigningNotConfiguredError } from './signing-errors.js';

// The PDF half of portable proof: each account's X.509 signing certificate (self-signed by default,
// or imported from PKCS#12) and the sealing of each frozen PDF: the credential attached, a PAdES
// signature over the whole file (B-B; B-T with a time stamp when TSA_URL is set).

export interface PdfCertificateView {
  id: string;
  subject: string;
  issuer: string;
  fingerprintSha256: string;
  keyType: string;
  source: 'generated' | 'imported';
  validFrom: string;
  validTo: string;
  chainLength: number;
  createdAt: string;
  retiredAt: string | null;
  current: boolean;
}

export interface SealItem {
  unsealed: UnsealedPdf;
  /** The credential, attached as credential.json. */
  credential: Buffer;
}

// Room in /Contents for a time-stamp token (the TSA's certificates included) until this process
// has seen the TSA's tokens: then the largest seen plus a margin. A token that does not fit makes
// that one document be signed again with room for it.
const FIRST_TIME_STAMP_RESERVE = 8_192;
const TIME_STAMP_MARGIN = 512;
// Time-stamp requests of one issue in flight at once.
const TIME_STAMP_CONCURRENCY = 8;

class TokenTooLargeError extends Error {}

function view(row: certsRepo.PdfCertificateRow): PdfCertificateView {
  const x509 = new X509Certificate(row.certificate);
  return {
    id: row.id,
    subject: x509.subject.replaceAll('\n', ', '),
    issuer: x509.issuer.replaceAll('\n', ', '),
    fingerprintSha256: createHash('sha256').update(row.certificate).digest('hex'),
    keyType: x509.publicKey.asymmetricKeyType === 'ec' ? 'ECDSA' : 'RSA',
    source: row.source,
    validFrom: new Date(x509.validFrom).toISOString(),
    validTo: new Date(x509.validTo).toISOString(),
    chainLength: row.chain.length,
    createdAt: row.created_at.toISOString(),
    retiredAt: row.retired_at?.toISOString() ?? null,
    current: row.retired_at === null,
  };
}

export function createPdfSigningService(deps: {
  db: Db;
  vault: KeyVault | undefined;
  /** RFC 3161 time-stamp authority: B-T signatures when set. */
  tsa?: { url: string; timeoutMs: number };
  now: () => Date;
  logger?: Pick<Logger, 'warn'>;
}) {
  const { db } = deps;
  const timeStamper: TimeStamper | undefined = deps.tsa
    ? createTimeStamper(deps.tsa.url, deps.tsa.timeoutMs)
    : undefined;
  // Signers by certificate id: a certificate and its key never change, only which one is current.
  const signers = new Map<string, CmsSigner>();
  let timeStampRoom = FIRST_TIME_STAMP_RESERVE;

  function vault(): KeyVault {
    if (!deps.vault) throw new SigningNotConfiguredError();
    return deps.vault;
  }

  function sealed(id: string, privateKey: KeyObject) {
    return vault().seal(privateKey.export({ format: 'der', type: 'pkcs8' }), id);
  }

  function generated(accountId: string, accountName: string): certsRepo.NewPdfCertificate {
    const id = uuidv7();
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const certificate = selfSignedCertificate({
      commonName: accountName,
      publicKey,
      privateKey,
      notBefore: new Date(deps.now().getTime() - 60_000),
    });
    return { id, accountId, certificate, chain: [], privateKey: sealed(id, privateKey), source: 'generated' };
  }

  function signerOf(row: certsRepo.PdfCertificateRow): CmsSigner {
    let signer = signers.get(row.id);
    if (!signer) {
      const privateKey = createPrivateKey({
        key: vault().open(row.private_key, row.id),
        format: 'der',
        type: 'pkcs8',
      });
      signer = createCmsSigner({ certificate: row.certificate, chain: row.chain, privateKey });
      signers.set(row.id, signer);
    }
    return signer;
  }

  async function current(accountId: string): Promise<certsRepo.PdfCertificateRow> {
    let row = await certsRepo.currentCertificate(db, accountId);
    if (!row) {
      const account = await findAccount(db, accountId);
      if (!account) throw new NotFoundError('Account');
      // On a connection of its own, committed at once, as the first credential key is.
      await certsRepo.insertFirstCertificate(db.pool, generated(accountId, account.name));
      row = await certsRepo.currentCertificate(db, accountId);
    }
    return row!;
  }

  // Certificates' ends, by id (parsed once).
  const ends = new Map<string, number>();
  // An expired certificate (an imported one whose term ended) would make every PDF signed from then
  // on show "certificate expired" in PDF readers: the account gets a new self-signed certificate
  // instead, and the operator is told (in the log and by `certsvc signing-key list`) to import a
  // renewed one.
  async function unexpired(row: certsRepo.PdfCertificateRow, at: Date): Promise<certsRepo.PdfCertificateRow> {
    let end = ends.get(row.id);
    if (end === undefined) {
      end = new Date(new X509Certificate(row.certificate).validTo).getTime();
      ends.set(row.id, end);
    }
    if (end > at.getTime()) return row;
    const account = await findAccount(db, row.account_id);
    const fresh = generated(row.account_id, account!.name);
    const replaced = await db.transaction((tx) => certsRepo.replaceIfCurrent(tx, row.id, fresh, deps.now()));
    if (replaced) {
      deps.logger?.warn(
        {
          accountId: row.account_id,
          expired: row.id,
          validTo: new Date(end).toISOString(),
          replacement: fresh.id,
        },
        'PDF signing certificate expired: signing with a new self-signed certificate; import a renewed one',
      );
    }
    return (await certsRepo.currentCertificate(db, row.account_id))!;
  }

  return {
    // Before an issue's transaction (beside its rendering): the account's current certificate, made
    // on first use outside the transaction and replaced when expired at `at`. Read for every issue,
    // so that a rotation or an import takes effect at once on every instance.
    // `known`: the current certificate when the caller has just read it (readSigningContext).
    async prepare(
      accountId: string,
      at: Date,
      known?: certsRepo.PdfCertificateRow,
    ): Promise<certsRepo.PdfCertificateRow> {
      vault();
      return unexpired(known ?? (await current(accountId)), at);
    },

    // Seals the documents of an issue with the certificate from prepare. The order of the answer is
    // the order of the items. A time-stamp authority that fails fails the issue: nothing is frozen
    // without the time stamp TSA_URL promises.
    async seal(
      row: certsRepo.PdfCertificateRow,
      items: SealItem[],
      signedAt: Date,
    ): Promise<{ pdf: Buffer; sha256: string; signedBy: string }[]> {
      if (items.length === 0) return [];
      const signer = signerOf(row);
      const at = signedAt.toISOString();
      const out: { pdf: Buffer; sha256: string; signedBy: string }[] = new Array(items.length);
      // The time stamp's length is known only once it is there: a token that does not fit the
      // reserved space makes its document be sealed again, with room for it.
      const stamped = async (digest: Buffer, room: number) => {
        const cms = await signer.sign(digest, timeStamper);
        const tokenLength = cms.length - signer.maxLength + TIME_STAMP_MARGIN;
        if (tokenLength > timeStampRoom) timeStampRoom = tokenLength;
        if (cms.length > room) throw new TokenTooLargeError();
        return cms;
      };
      const sealOne = async (i: number) => {
        const item = items[i]!;
        for (let attempt = 0; ; attempt++) {
          const reserve = signer.maxLength + (timeStamper ? timeStampRoom : 0);
          try {
            const { pdf, sha256 } = await sealPdf(item.unsealed, {
              attachment: item.credential,
              signedAt: at,
              reserve,
              sign: (digest) => (timeStamper ? stamped(digest, reserve) : signer.sign(digest)),
            });
            out[i] = { pdf, sha256, signedBy: row.id };
            return;
          } catch (err) {
            if (!(err instanceof TokenTooLargeError) || attempt > 0) throw err;
          }
        }
      };
      try {
        if (!timeStamper) {
          for (let i = 0; i < items.length; i++) {
            await letOthersIn(i);
            await sealOne(i);
          }
        } else {
          let next = 0;
          const lane = async () => {
            while (next < items.length) await sealOne(next++);
          };
          await Promise.all(Array.from({ length: Math.min(TIME_STAMP_CONCURRENCY, items.length) }, lane));
        }
      } catch (err) {
        if (err instanceof TimeStampError) {
          deps.logger?.warn({ tsa: deps.tsa?.url, reason: err.message }, 'time stamp failed: issue refused');
          throw new ServiceUnavailableError('time-stamp authority', 5);
        }
        throw err;
      }
      return out;
    },

    // The certificate that signed a certificate's frozen PDF (none: frozen before PDFs were signed).
    async signerOf(accountId: string, certificateId: string): Promise<PdfCertificateView | undefined> {
      const row = await certsRepo.signerOfPdf(db, accountId, certificateId);
      return row && view(row);
    },

    async list(accountId: string): Promise<PdfCertificateView[]> {
      if (!(await findAccount(db, accountId))) throw new NotFoundError('Account');
      return (await certsRepo.listCertificates(db, accountId)).map(view);
    },

    // A new self-signed certificate (subject: the account's name now) when the current one was
    // generated; an imported certificate is kept (the operator replaces it with another import).
    async rotate(accountId: string): Promise<{ rotated: boolean; certificate: PdfCertificateView }> {
      const account = await findAccount(db, accountId);
      if (!account) throw new NotFoundError('Account');
      const existing = await certsRepo.currentCertificate(db, accountId);
      if (existing?.source === 'imported') return { rotated: false, certificate: view(existing) };
      const cert = generated(accountId, account.name);
      await db.transaction((tx) => certsRepo.replaceCertificate(tx, cert, deps.now()));
      return { rotated: true, certificate: view((await certsRepo.currentCertificate(db, accountId))!) };
    },

    // Makes the certificate and key of a PKCS#12 file the account's current PDF signing identity.
    async importPkcs12(accountId: string, file: Buffer, passphrase: string): Promise<PdfCertificateView> {
      if (!(await findAccount(db, accountId))) throw new NotFoundError('Account');
      vault();
      const identity = await readPkcs12(file, passphrase);
      const id = uuidv7();
      const cert: certsRepo.NewPdfCertificate = {
        id,
        accountId,
        certificate: identity.certificate,
        chain: identity.chain,
        privateKey: sealed(id, identity.privateKey),
        source: 'imported',
      };
      await db.transaction((tx) => certsRepo.replaceCertificate(tx, cert, deps.now()));
      return view((await certsRepo.currentCertificate(db, accountId))!);
    },
  };
}

export type PdfSigningService = ReturnType<typeof createPdfSigningService>;
