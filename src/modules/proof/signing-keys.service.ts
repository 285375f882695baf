import type { Logger } from 'pino';
import { createPrivateKey, generateKeyPairSync, sign, X509Certificate, type KeyObject } from 'node:crypto';
import type { Db, Queryable } from '../../platform/db/db.js';
import { NotFoundError } from '../../platform/errors.js';
import { uuidv7 } from '../../platform/ids.js';
import { createCmsSigner, type CmsSigner } from '../../platform/proof/cms.js';
import type { Signer } from '../../platform/proof/data-integrity.js';
import type { KeyVault } from '../../platform/proof/key-vault.js';
import { ed25519PublicKeyMultibase } from '../../platform/proof/multibase.js';
import { readPkcs12 } from '../../platform/proof/pkcs12.js';
import { selfSignedCertificate } from '../../platform/proof/x509.js';
import { findAccount } from '../accounts/accounts.repository.js';
import { checkVault } from './vault-check.js';
import { pdfCertificateView, type PdfCertificateView } from './pdf-certificate-view.js';

export type { PdfCertificateView } from './pdf-certificate-view.js';
import { existingAccount, rotatedEvent, type Doer } from './signing-key-changes.js';
import { issuerDid, keyMethodId } from '../shared/issuer-identity.js';
import { SigningNotConfiguredError } from './signing-errors.js';
import { createSdJwtKeys } from './sd-jwt-keys.js';
import * as repo from './signing-keys.repository.js';

// The accounts' signing keys, both kinds, from birth to retirement: the Ed25519 key that signs the
// credentials and status lists, and the PDF signing certificate (self-signed by default, or imported
// from PKCS#12) whose key seals the PDFs. Private keys are sealed by the key vault (absent: this
// process cannot sign), opened once per process, made on first use, rotated or imported by the CLI.
// What signs leaves here as a signer, and as the opened key that the PDF threads sign with
// (proof.worker.ts): never as bytes, never logged.

export interface SigningKeyView {
  id: string;
  verificationMethod: string;
  publicKeyMultibase: string;
  createdAt: string;
  retiredAt: string | null;
  current: boolean;
}

/** An account's credential key, opened. */
export interface CredentialKey {
  id: string;
  signer: Signer;
  /** The opened private key (a KeyObject: it can be posted to a thread, it prints no bytes). */
  privateKey: KeyObject;
}

/** An account's PDF signing certificate, opened. */
export interface PdfKey {
  id: string;
  signer: CmsSigner;
  /** What a thread makes the same signer from (createCmsSigner): the opened key, its certificates. */
  privateKey: KeyObject;
  certificate: Buffer;
  chain: Buffer[];
}

/** Both keys an issue signs with. */
export interface IssueKeys {
  credential: CredentialKey;
  pdf: PdfKey;
}

interface NewCredentialKey {
  id: string;
  accountId: string;
  publicKey: Buffer;
  privateKey: Buffer;
}

function rawPublicKey(key: KeyObject): Buffer {
  return Buffer.from(key.export({ format: 'jwk' }).x!, 'base64url');
}

interface Deps {
  db: Db;
  publicBaseUrl: string;
  vault: KeyVault | undefined;
  now: () => Date;
  logger?: Pick<Logger, 'warn'>;
}

type Row = { id: string; account_id: string; private_key: Buffer };

// What the lifecycle of one kind of key needs to know of it; the rest is written once for both.
interface KeyKind<R extends Row, Opened> {
  current(q: Queryable, accountId: string): Promise<R | undefined>;
  /** Makes the account's first key and inserts it (nothing when another instance did first). */
  insertFirst(q: Queryable, accountId: string): Promise<void>;
  open(row: R, privateKey: KeyObject): Opened;
}

function vaultOf(deps: Deps): KeyVault {
  if (!deps.vault) throw new SigningNotConfiguredError();
  return deps.vault;
}

function sealedKey(deps: Deps, id: string, privateKey: KeyObject): Buffer {
  return vaultOf(deps).seal(privateKey.export({ format: 'der', type: 'pkcs8' }), id);
}

function newCredentialKey(deps: Deps, accountId: string): NewCredentialKey {
  const id = uuidv7();
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return { id, accountId, publicKey: rawPublicKey(publicKey), privateKey: sealedKey(deps, id, privateKey) };
}

function generatedCertificate(deps: Deps, accountId: string, accountName: string): repo.NewPdfCertificate {
  const id = uuidv7();
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const certificate = selfSignedCertificate({
    commonName: accountName,
    publicKey,
    privateKey,
    notBefore: new Date(deps.now().getTime() - 60_000),
  });
  return {
    id,
    accountId,
    certificate,
    chain: [],
    privateKey: sealedKey(deps, id, privateKey),
    source: 'generated',
  };
}

function credentialKind(deps: Deps): KeyKind<repo.SigningKeyRow, CredentialKey> {
  return {
    current: repo.currentKey,
    insertFirst: (q, accountId) => repo.insertFirstKey(q, newCredentialKey(deps, accountId)),
    open: (row, privateKey) => ({
      id: row.id,
      signer: {
        verificationMethod: keyMethodId(issuerDid(deps.publicBaseUrl, row.account_id), row.id),
        sign: (data) => sign(null, data, privateKey),
      },
      privateKey,
    }),
  };
}

function pdfKind(deps: Deps): KeyKind<repo.PdfCertificateRow, PdfKey> {
  return {
    current: repo.currentCertificate,
    async insertFirst(q, accountId) {
      const account = await findAccount(deps.db, accountId);
      if (!account) throw new NotFoundError('Account');
      await repo.insertFirstCertificate(q, generatedCertificate(deps, accountId, account.name));
    },
    open: (row, privateKey) => ({
      id: row.id,
      signer: createCmsSigner({ certificate: row.certificate, chain: row.chain, privateKey }),
      privateKey,
      certificate: row.certificate,
      chain: row.chain,
    }),
  };
}

// The account's current key of a kind, made on first use (by whichever instance gets there first).
async function currentOrFirst<R extends Row>(
  db: Db,
  kind: KeyKind<R, unknown>,
  q: Queryable,
  accountId: string,
): Promise<R> {
  let row = await kind.current(q, accountId);
  if (!row) {
    // On a connection of its own, committed at once, even when called within a transaction (an
    // import's chunk, the backfill): two such transactions making an account's first key and
    // first PDF certificate would otherwise wait for each other (a deadlock).
    await kind.insertFirst(db.pool, accountId);
    row = await kind.current(q, accountId);
  }
  return row!;
}

// An expired certificate (an imported one whose term ended) would make every PDF signed from then
// on show "certificate expired" in PDF readers: the account gets a new self-signed certificate
// instead, and the operator is told (in the log and by `certsvc signing-key list`) to import a
// renewed one. `end`: when `row` expired.
async function replaceExpired(
  deps: Deps,
  row: repo.PdfCertificateRow,
  end: number,
): Promise<repo.PdfCertificateRow> {
  const { db } = deps;
  const account = await findAccount(db, row.account_id);
  const fresh = generatedCertificate(deps, row.account_id, account!.name);
  const replaced = await db.transaction((tx) => repo.replaceIfCurrent(tx, row.id, fresh, deps.now()));
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
  return (await repo.currentCertificate(db, row.account_id))!;
}

function keyView(deps: Deps, row: repo.SigningKeyRow): SigningKeyView {
  return {
    id: row.id,
    verificationMethod: keyMethodId(issuerDid(deps.publicBaseUrl, row.account_id), row.id),
    publicKeyMultibase: ed25519PublicKeyMultibase(row.public_key),
    createdAt: row.created_at.toISOString(),
    retiredAt: row.retired_at?.toISOString() ?? null,
    current: row.retired_at === null,
  };
}

// The keys as people see and change them (the CLI, the dashboard): public parts only.
function keyAdministration(deps: Deps) {
  const { db } = deps;
  return {
    async listKeys(accountId: string): Promise<SigningKeyView[]> {
      await existingAccount(db, accountId);
      return (await repo.listKeys(db, accountId)).map((row) => keyView(deps, row));
    },

    async listPdfCertificates(accountId: string): Promise<PdfCertificateView[]> {
      await existingAccount(db, accountId);
      return (await repo.listCertificates(db, accountId)).map(pdfCertificateView);
    },

    // The certificate that signed a certificate's frozen PDF (none: frozen before PDFs were signed).
    async pdfSignerOf(accountId: string, certificateId: string): Promise<PdfCertificateView | undefined> {
      const row = await repo.signerOfPdf(db, accountId, certificateId);
      return row && pdfCertificateView(row);
    },

    // A new current credential key: credentials issued from now on, on every instance, are signed with
    // it; the retired one stays in the DID document, so what it signed keeps verifying.
    async rotateCredentialKey(doer: Doer, accountId: string): Promise<SigningKeyView> {
      await existingAccount(db, accountId);
      const key = newCredentialKey(deps, accountId);
      const what = { kind: 'credential_key', id: key.id };
      await rotatedEvent(deps, doer, accountId, what, (tx, at) => repo.rotateKey(tx, key, at));
      return keyView(deps, (await repo.currentKey(db, accountId))!);
    },

    // A new self-signed PDF certificate (subject: the account's name now) when the current one was
    // generated; an imported certificate is kept (the operator replaces it with another import).
    async rotatePdfCertificate(
      doer: Doer,
      accountId: string,
    ): Promise<{ rotated: boolean; certificate: PdfCertificateView }> {
      const account = await existingAccount(db, accountId);
      const existing = await repo.currentCertificate(db, accountId);
      if (existing?.source === 'imported')
        return { rotated: false, certificate: pdfCertificateView(existing) };
      const cert = generatedCertificate(deps, accountId, account.name);
      const what = { kind: 'pdf_certificate', id: cert.id, source: 'generated' };
      await rotatedEvent(deps, doer, accountId, what, (tx, at) => repo.replaceCertificate(tx, cert, at));
      return {
        rotated: true,
        certificate: pdfCertificateView((await repo.currentCertificate(db, accountId))!),
      };
    },

    // After a rename, in its transaction (`tx`, the account already renamed): the generated PDF
    // signing certificate names the organisation, so one for the new name becomes current (without
    // the key vault, the old one is retired and the next issue makes it). PDFs signed before keep
    // their valid signatures: each carries its certificate. An imported certificate is the
    // operator's: it stays.
    async renewForName(tx: Queryable, accountId: string): Promise<void> {
      const current = await repo.currentCertificate(tx, accountId);
      if (!current || current.source === 'imported') return;
      if (!deps.vault) return repo.retireCertificate(tx, current.id, deps.now());
      const account = await findAccount(tx, accountId);
      await repo.replaceCertificate(tx, generatedCertificate(deps, accountId, account!.name), deps.now());
    },

    // Makes the certificate and key of a PKCS#12 file the account's current PDF signing identity.
    async importPkcs12(
      doer: Doer,
      accountId: string,
      p12: Buffer,
      pass: string,
    ): Promise<PdfCertificateView> {
      await existingAccount(db, accountId);
      vaultOf(deps);
      const identity = await readPkcs12(p12, pass);
      const id = uuidv7();
      const cert: repo.NewPdfCertificate = {
        id,
        accountId,
        certificate: identity.certificate,
        chain: identity.chain,
        privateKey: sealedKey(deps, id, identity.privateKey),
        source: 'imported',
      };
      const what = { kind: 'pdf_certificate', id, source: 'imported' };
      await rotatedEvent(deps, doer, accountId, what, (tx, at) => repo.replaceCertificate(tx, cert, at));
      return pdfCertificateView((await repo.currentCertificate(db, accountId))!);
    },
  };
}

export function createSigningKeys(deps: Deps) {
  const { db } = deps;
  const credentialKeys = credentialKind(deps);
  const pdfKeys = pdfKind(deps);
  // Opened keys by key id: a key's bytes never change, only which key is current.
  const opened = new Map<string, unknown>();
  // Certificates' ends, by id (parsed once).
  const ends = new Map<string, number>();

  function openKey<R extends Row, Opened>(kind: KeyKind<R, Opened>, row: R): Opened {
    let key = opened.get(row.id) as Opened | undefined;
    if (!key) {
      const der = vaultOf(deps).open(row.private_key, row.id);
      key = kind.open(row, createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }));
      opened.set(row.id, key);
    }
    return key;
  }

  async function unexpired(row: repo.PdfCertificateRow, at: Date): Promise<repo.PdfCertificateRow> {
    let end = ends.get(row.id);
    if (end === undefined) {
      end = new Date(new X509Certificate(row.certificate).validTo).getTime();
      ends.set(row.id, end);
    }
    return end > at.getTime() ? row : replaceExpired(deps, row, end);
  }

  return {
    canSign: deps.vault !== undefined,
    /** The ES256 keys of SD-JWT VCs and Token Status Lists (sd-jwt-keys.ts). */
    sdJwt: createSdJwtKeys(deps),
    issuerDid: (accountId: string) => issuerDid(deps.publicBaseUrl, accountId),

    /** Throws SigningNotConfiguredError when this process has no key vault. */
    assertCanSign(): void {
      vaultOf(deps);
    },

    // A master key that does not open the stored keys is a configuration fault: refused at start.
    checkVault: (): Promise<void> => checkVault(db, deps.vault),

    // Both keys of an issue at `at`, opened, each made on first use outside any transaction, the PDF
    // certificate replaced when expired. `known`: the current rows as the caller has just read them
    // (readSigningContext), so that the usual case reads nothing more.
    async forIssue(
      accountId: string,
      at: Date,
      known: { key?: repo.SigningKeyRow; pdfCertificate?: repo.PdfCertificateRow } = {},
    ): Promise<IssueKeys> {
      vaultOf(deps);
      const key = known.key ?? (await currentOrFirst(db, credentialKeys, db, accountId));
      const certificate = await unexpired(
        known.pdfCertificate ?? (await currentOrFirst(db, pdfKeys, db, accountId)),
        at,
      );
      return { credential: openKey(credentialKeys, key), pdf: openKey(pdfKeys, certificate) };
    },

    // The account's current credential key, opened (made on first use; `q`: read in the caller's
    // transaction, the first key still made on a connection of its own; `known`: the current row as
    // the caller has just read it, so that nothing more is read).
    async credentialKey(
      accountId: string,
      q: Queryable = db,
      known?: repo.SigningKeyRow,
    ): Promise<CredentialKey> {
      vaultOf(deps);
      return openKey(credentialKeys, known ?? (await currentOrFirst(db, credentialKeys, q, accountId)));
    },

    // The account's current PDF signing certificate at `at`, opened (made on first use, replaced when
    // expired).
    async pdfKey(accountId: string, at: Date): Promise<PdfKey> {
      vaultOf(deps);
      return openKey(pdfKeys, await unexpired(await currentOrFirst(db, pdfKeys, db, accountId), at));
    },

    // The keys a DID document lists, the retired ones too; a process that can sign makes the first.
    async publishedKeys(accountId: string): Promise<SigningKeyView[]> {
      if (deps.vault) await currentOrFirst(db, credentialKeys, db, accountId);
      return (await repo.listKeys(db, accountId)).map((row) => keyView(deps, row));
    },

    ...keyAdministration(deps),
  };
}

export type SigningKeys = ReturnType<typeof createSigningKeys>;
