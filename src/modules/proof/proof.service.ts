import type { Logger } from 'pino';
import type { Db, Queryable } from '../../platform/db/db.js';
import { NotFoundError, ServiceUnavailableError } from '../../platform/errors.js';
import { createTimeStamper, TimeStampError } from '../../platform/proof/timestamp.js';
import {
  createPdfSealer,
  type PdfRenderer,
  type SealItem,
  type UnsealedPdf,
} from '../../pdf/pdf-renderer.js';
import { createBoundCredentials } from './bound-credential.js';
import { createCredentialSigning, credentialFacts, type CredentialIssue } from './credential-signing.js';
import { backfillCredentials } from './credentials-backfill.js';
import {
  credentialByCode,
  readCredential,
  readCredentialAndKey,
  revokeCredential,
  type NewCredential,
} from './credentials.repository.js';
import { createIssuerDocuments } from './issuer-documents.js';
import { createSdJwtDocuments } from './sd-jwt-documents.js';
import { createSdJwtIssuing } from './sd-jwt-vc.js';
import { readSigningContext } from './signing-keys.repository.js';
import type { IssueKeys, PdfKey, SigningKeys } from './signing-keys.service.js';
import type { ProvedItem, ProveItem, ProveTask } from './proof.worker.js';
import { FILL_LIMIT, randomEntries, type StatusEntry } from './status-lists.repository.js';

// Portable proof, the one door into it (docs/proof.md): issuing prepares an issue's proof beside
// its rendering (prepare: the account's keys, read afresh for every issue so that a rotation takes
// effect at once everywhere) and turns the certificates of a batch into their two proofs at once
// (prove): the Open Badges credential, signed, and the PDF with that credential attached, sealed
// (PAdES: B-B; B-T with a time stamp when TSA_URL is set). The issue's repository writes them. Here
// too: a credential's bytes as frozen, the issuer's DID document and status lists, revocation bits
// and the backfill of credentials for certificates issued before them.

/** A certificate being issued, rendered and not yet sealed. */
export interface ProvableCertificate {
  certificateId: string;
  recipientName: string;
  recipientEmail: string;
  title: string;
  /** The credential's validUntil. */
  expiresAt: Date | null;
  unsealed: UnsealedPdf;
}

/** The certificates of one issue: from one template, at one time. */
export interface ProofBatch {
  template: { id: string; name: string; recipientDescription: string | null };
  issuedAt: Date;
  certificates: ProvableCertificate[];
}

export interface SealedPdf {
  pdf: Buffer;
  sha256: string;
  /** The PDF signing certificate that sealed it. */
  signedBy: string;
}

/** A certificate's two proofs, in the order of the batch. */
export interface Proof {
  credential: NewCredential;
  sealedPdf: SealedPdf;
}

/** An issue's proof, prepared: what its certificates are proven with. */
export interface Prover {
  /** The organisation's name as the preparing read found it: the issuer the certificates name. */
  issuerName: string;
  /**
   * A status entry the preparing read found free in a list with room (when asked for guesses): a
   * single issue may sign at it before it is written, and write all in one statement.
   */
  freeEntry: StatusEntry | undefined;
  /** The proofs of the batch's certificates at their status entries (one per certificate, in order). */
  prove(batch: ProofBatch, entries: StatusEntry[]): Promise<Proof[]>;
}

const PROVE_WORKER = new URL('./proof.worker.js', import.meta.url);
const asBuffer = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength);

// Both proofs of each certificate on the PDF threads (proof.worker.ts), where the main thread's
// event loop and garbage collector do not wait on them: the opened keys go with each task.
async function proveOnThreads(
  deps: { publicBaseUrl: string; renderer: () => PdfRenderer },
  keys: IssueKeys,
  issue: Omit<CredentialIssue, 'subjects'>,
  batch: ProofBatch,
  entries: StatusEntry[],
): Promise<Proof[]> {
  const items = batch.certificates.map((c, i): ProveItem => ({
    facts: credentialFacts(deps.publicBaseUrl, issue, c, entries[i]!),
    unsealed: c.unsealed,
  }));
  const shared: Omit<ProveTask, 'items'> = {
    credentialKey: {
      verificationMethod: keys.credential.signer.verificationMethod,
      privateKey: keys.credential.privateKey,
    },
    pdfKey: {
      id: keys.pdf.id,
      privateKey: keys.pdf.privateKey,
      certificate: keys.pdf.certificate,
      chain: keys.pdf.chain,
    },
    signedAt: batch.issuedAt.toISOString(),
  };
  const proved = await deps.renderer().runEach<ProveItem, ProvedItem>(PROVE_WORKER, shared, items);
  return proved.map((p, i) => ({
    credential: {
      certificateId: batch.certificates[i]!.certificateId,
      statusList: entries[i]!.list,
      statusIndex: entries[i]!.index,
      signingKeyId: keys.credential.id,
      body: asBuffer(p.credential),
    },
    sealedPdf: { pdf: asBuffer(p.pdf), sha256: p.sha256, signedBy: keys.pdf.id },
  }));
}

export function createProofService(deps: {
  db: Db;
  publicBaseUrl: string;
  signingKeys: SigningKeys;
  /** The PDF threads, where an issue's credentials are signed and its PDFs sealed (without a TSA). */
  renderer: () => PdfRenderer;
  /** RFC 3161 time-stamp authority: B-T signatures when set. */
  tsa?: { url: string; timeoutMs: number };
  now: () => Date;
  logger?: Pick<Logger, 'warn'>;
}) {
  const { db, signingKeys } = deps;
  const signing = createCredentialSigning(deps.publicBaseUrl);
  const sealer = createPdfSealer(deps.tsa ? createTimeStamper(deps.tsa.url, deps.tsa.timeoutMs) : undefined);
  const documents = createIssuerDocuments({ db, publicBaseUrl: deps.publicBaseUrl, signingKeys });
  const sdJwt = { db, publicBaseUrl: deps.publicBaseUrl, keys: signingKeys.sdJwt };
  const sdJwtDocuments = createSdJwtDocuments(sdJwt);
  const bound = createBoundCredentials();
  const sdJwtIssuing = createSdJwtIssuing(sdJwt);

  // A time-stamp authority that fails fails the issue: nothing is frozen without the time stamp
  // TSA_URL promises.
  async function seal(key: PdfKey, items: SealItem[], signedAt: Date): Promise<SealedPdf[]> {
    try {
      const sealed = await sealer.sealAll(key.signer, items, signedAt.toISOString());
      return sealed.map((s) => ({ ...s, signedBy: key.id }));
    } catch (err) {
      if (err instanceof TimeStampError) {
        deps.logger?.warn({ tsa: deps.tsa?.url, reason: err.message }, 'time stamp failed: issue refused');
        throw new ServiceUnavailableError('time-stamp authority', 5);
      }
      throw err;
    }
  }

  // The certificate's frozen credential (parsed) and the account's current key, read in one round
  // trip (nothing is written), ready to bind the credential to a holder and then sign it at `now`:
  // an OID4VCI request reads them while its key proof is checked, and signs while its claim is
  // recorded. NotFoundError when the certificate has no credential.
  async function boundSigner(input: { accountId: string; certificateId: string; now: Date }) {
    const read = await readCredentialAndKey(db, input.accountId, input.certificateId);
    if (!read) throw new NotFoundError('Credential');
    const [key, bind] = await Promise.all([
      signingKeys.credentialKey(input.accountId, db, read.key),
      bound.read(read.body),
    ]);
    return (holderDid: string) => bind({ holderDid, key, now: input.now });
  }

  return {
    // Before an issue's transaction, beside its rendering: the account's name and current keys (each
    // made on first use outside any transaction; an expired PDF certificate replaced at `at`), in one
    // read in the usual case. `guesses`: how many random status entries to look up (freeEntry).
    async prepare(accountId: string, at: Date, opts: { guesses?: number } = {}): Promise<Prover> {
      const context = await readSigningContext(db, accountId, randomEntries(opts.guesses ?? 0));
      if (!context) throw new NotFoundError('Account');
      const [keys] = await Promise.all([signingKeys.forIssue(accountId, at, context), signing.ready()]);
      const list = context.statusList;
      const index = list?.free[0];
      return {
        issuerName: context.accountName,
        freeEntry:
          list && list.used < FILL_LIMIT && index !== undefined ? { list: list.n, index } : undefined,
        async prove(batch, entries) {
          if (batch.certificates.length === 0) return [];
          const issue = {
            accountId,
            accountName: context.accountName,
            template: batch.template,
            issuedAt: batch.issuedAt,
          };
          // A time-stamped seal waits on the TSA: it stays here, where the waits overlap.
          if (!deps.tsa) return proveOnThreads(deps, keys, issue, batch, entries);
          const credentials = await signing.sign(
            keys.credential,
            { ...issue, subjects: batch.certificates },
            entries,
          );
          const sealed = await seal(
            keys.pdf,
            batch.certificates.map((c, i) => ({ unsealed: c.unsealed, attachment: credentials[i]!.body })),
            batch.issuedAt,
          );
          return credentials.map((credential, i) => ({ credential, sealedPdf: sealed[i]! }));
        },
      };
    },

    // Sets the certificate's revocation bit, in the revocation's transaction.
    async revoke(tx: Queryable, accountId: string, certificateId: string): Promise<void> {
      await revokeCredential(tx, accountId, certificateId);
    },

    async credential(accountId: string, certificateId: string): Promise<Buffer | undefined> {
      return readCredential(db, accountId, certificateId);
    },

    async credentialByCode(code: string) {
      return credentialByCode(db, code);
    },

    boundSigner,

    // The certificate's credential bound to a wallet's holder, signed now by the account's current
    // key (bound-credential.ts). NotFoundError when the certificate has no credential.
    async signBound(input: {
      accountId: string;
      certificateId: string;
      holderDid: string;
      now: Date;
    }): Promise<Record<string, unknown>> {
      return (await boundSigner(input))(input.holderDid)();
    },

    didDocument: documents.didDocument,
    statusList: documents.statusList,

    // SD-JWT VCs (sd-jwt-vc.ts): the certificate bound to a holder's key, and what verifiers fetch
    // to check one: the JWT VC issuer metadata (the keys) and the Token Status Lists.
    issueSdJwtVc: sdJwtIssuing.issueSdJwtVc,
    sdJwtVcIssuer: sdJwtIssuing.sdJwtVcIssuer,
    jwtVcIssuerMetadata: sdJwtDocuments.issuerMetadata,
    tokenStatusList: sdJwtDocuments.tokenStatusList,

    async backfill(opts: { batch?: number; accountId?: string } = {}): Promise<{ made: number }> {
      return backfillCredentials({ db, now: deps.now, signingKeys, signing }, opts);
    },
  };
}

export type ProofService = ReturnType<typeof createProofService>;
