import { createPrivateKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { Db, Queryable } from '../../platform/db/db.js';
import { NotFoundError } from '../../platform/errors.js';
import { uuidv7 } from '../../platform/ids.js';
import { VC_V2 } from '../../platform/proof/contexts.js';
import { signDocument, signFromTemplate, type Signer } from '../../platform/proof/data-integrity.js';
import { letOthersIn } from '../../platform/event-loop.js';
import type { KeyVault } from '../../platform/proof/key-vault.js';
import { ed25519PublicKeyMultibase } from '../../platform/proof/multibase.js';
import { compileRdfTemplate, type RdfTemplate } from '../../platform/proof/rdf-template.js';
import { findAccount } from '../accounts/accounts.repository.js';
import * as credentialsRepo from './credentials.repository.js';
import { issuerDid, keyMethodId, statusListUrl } from '../shared/issuer-identity.js';
import { CREDENTIAL_SHAPE, EXPIRING_CREDENTIAL_SHAPE, openBadgeCredential } from './open-badge.js';
import * as keysRepo from './signing-keys.repository.js';
import * as lists from './status-lists.repository.js';
import { SigningNotConfiguredError } from './signing-errors.js';

// What a certificate's credential says, beyond what the service knows of its account.
export interface CredentialSubject {
  certificateId: string;
  recipientName: string;
  recipientEmail: string;
  title: string;
  // The certificate's own issue time when it differs from the issue's (the backfill).
  issuedAt?: Date;
  /** The certificate's expiry: the credential's validUntil. */
  expiresAt?: Date | null;
}

// One issue's credentials: who issues them, from which template, when, and for whom.
export interface CredentialIssue {
  accountId: string;
  accountName: string;
  template: { id: string; name: string; description: string | null };
  issuedAt: Date;
  subjects: CredentialSubject[];
}

export interface SigningKeyView {
  id: string;
  verificationMethod: string;
  publicKeyMultibase: string;
  createdAt: string;
  retiredAt: string | null;
  current: boolean;
}

export { SigningNotConfiguredError };

function rawPublicKey(key: KeyObject): Buffer {
  return Buffer.from(key.export({ format: 'jwk' }).x!, 'base64url');
}

export function createCredentialsService(deps: {
  db: Db;
  publicBaseUrl: string;
  vault: KeyVault | undefined;
  now: () => Date;
}) {
  const { db, publicBaseUrl } = deps;
  const didOf = (accountId: string) => issuerDid(publicBaseUrl, accountId);
  // One RDF template per document shape: without and with validUntil.
  let shape: Promise<RdfTemplate> | undefined;
  let expiringShape: Promise<RdfTemplate> | undefined;
  const credentialTemplate = () => (shape ??= compileRdfTemplate(CREDENTIAL_SHAPE));
  const expiringTemplate = () => (expiringShape ??= compileRdfTemplate(EXPIRING_CREDENTIAL_SHAPE));
  // Opened private keys by key id: a key's bytes never change, only which key is current.
  const opened = new Map<string, KeyObject>();

  function vault(): KeyVault {
    if (!deps.vault) throw new SigningNotConfiguredError();
    return deps.vault;
  }

  function newKey(accountId: string) {
    const id = uuidv7();
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const pkcs8 = privateKey.export({ format: 'der', type: 'pkcs8' });
    return { id, accountId, publicKey: rawPublicKey(publicKey), privateKey: vault().seal(pkcs8, id) };
  }

  function signerOf(row: keysRepo.SigningKeyRow): Signer {
    let key = opened.get(row.id);
    if (!key) {
      key = createPrivateKey({ key: vault().open(row.private_key, row.id), format: 'der', type: 'pkcs8' });
      opened.set(row.id, key);
    }
    const privateKey = key;
    return {
      verificationMethod: keyMethodId(didOf(row.account_id), row.id),
      sign: (data) => sign(null, data, privateKey),
    };
  }

  // The account's current key, made on first use (by whichever instance gets there first).
  async function currentKey(q: Queryable, accountId: string): Promise<keysRepo.SigningKeyRow> {
    let row = await keysRepo.currentKey(q, accountId);
    if (!row) {
      // On a connection of its own, committed at once, even when called within a transaction (an
      // import's chunk, the backfill): two such transactions making an account's first key and
      // first PDF certificate would otherwise wait for each other (a deadlock).
      await keysRepo.insertFirstKey(db.pool, newKey(accountId));
      row = await keysRepo.currentKey(q, accountId);
    }
    return row!;
  }

  function keyView(row: keysRepo.SigningKeyRow): SigningKeyView {
    return {
      id: row.id,
      verificationMethod: keyMethodId(didOf(row.account_id), row.id),
      publicKeyMultibase: ed25519PublicKeyMultibase(row.public_key),
      createdAt: row.created_at.toISOString(),
      retiredAt: row.retired_at?.toISOString() ?? null,
      current: row.retired_at === null,
    };
  }

  // The Open Badges credential of each subject at its status entry, signed by `key`.
  async function signCredentials(
    key: keysRepo.SigningKeyRow,
    issue: CredentialIssue,
    entries: lists.StatusEntry[],
  ): Promise<credentialsRepo.NewCredential[]> {
    const signer = signerOf(key);
    const [template, expiring] = await Promise.all([credentialTemplate(), expiringTemplate()]);
    const signedAt = issue.issuedAt.toISOString();
    const did = didOf(issue.accountId);
    const items: credentialsRepo.NewCredential[] = [];
    for (const [i, subject] of issue.subjects.entries()) {
      await letOthersIn(i);
      const entry = entries[i]!;
      const { document, values } = openBadgeCredential({
        certificateId: subject.certificateId,
        issuedAt: (subject.issuedAt ?? issue.issuedAt).toISOString(),
        issuerDid: did,
        issuerName: issue.accountName,
        recipientName: subject.recipientName,
        recipientEmail: subject.recipientEmail,
        achievementId: `urn:uuid:${issue.template.id}`,
        title: subject.title,
        templateName: issue.template.name,
        templateDescription: issue.template.description,
        statusListUrl: statusListUrl(publicBaseUrl, issue.accountId, entry.list),
        statusIndex: entry.index,
        expiresAt: subject.expiresAt?.toISOString() ?? null,
      });
      const signed = await signFromTemplate(
        document,
        subject.expiresAt ? expiring : template,
        values,
        signer,
        signedAt,
      );
      items.push({
        certificateId: subject.certificateId,
        statusList: entry.list,
        statusIndex: entry.index,
        signingKeyId: key.id,
        body: Buffer.from(JSON.stringify(signed, null, 2)),
      });
    }
    return items;
  }

  // Status list credentials by (list, version, key): signed once per change, then served from memory.
  const signedLists = new Map<string, Promise<Buffer>>();

  return {
    // A master key that does not open the stored keys is a configuration fault: refused at start.
    async checkVault(): Promise<void> {
      if (!deps.vault) return;
      const row = await keysRepo.anyKey(db);
      if (row) deps.vault.open(row.private_key, row.id);
    },

    // Before an issue's transaction (beside its rendering): the account's current key, made on first
    // use outside the transaction. Read for every issue, so that a rotation takes effect at once on
    // every instance.
    // `current`: the current key when the caller has just read it (readSigningContext).
    async prepare(accountId: string, current?: keysRepo.SigningKeyRow): Promise<keysRepo.SigningKeyRow> {
      vault();
      const [key] = await Promise.all([
        current ?? currentKey(db, accountId),
        credentialTemplate(),
        expiringTemplate(),
      ]);
      return key;
    },

    // Makes and signs the credentials of certificates being issued, in the issue's transaction:
    // status entries, the Open Badges credential of each, signed by `key` (from prepare), frozen.
    async issue(tx: Queryable, key: keysRepo.SigningKeyRow, issue: CredentialIssue): Promise<Buffer[]> {
      if (issue.subjects.length === 0) return [];
      const entries = await lists.takeEntries(tx, issue.accountId, issue.subjects.length);
      const items = await signCredentials(key, issue, entries);
      await credentialsRepo.insertCredentials(tx, issue.accountId, items);
      return items.map((item) => item.body);
    },

    // The signed credentials of an issue whose status entries are already chosen (one per subject,
    // in order), written by the caller.
    sign: signCredentials,

    // Certificates issued before credentials existed get theirs, once, `batch` at a time in one
    // transaction each: validFrom their issue time, frozen from then on; a revoked one gets its bit.
    // Safe beside a live service and resumable: the rows are locked (SKIP LOCKED) and re-checked.
    // `accountId` limits it to one account.
    async backfill(opts: { batch?: number; accountId?: string } = {}): Promise<{ made: number }> {
      const batch = opts.batch ?? 500;
      vault();
      await Promise.all([credentialTemplate(), expiringTemplate()]);
      let made = 0;
      for (;;) {
        const done = await db.transaction(async (tx) => {
          const { rows } = await tx.query<{
            id: string;
            account_id: string;
            account_name: string;
            template_id: string;
            template_name: string;
            template_description: string | null;
            recipient_name: string;
            recipient_email: string;
            title: string;
            issued_at: Date;
            expires_at: Date | null;
            status: string;
          }>(
            `SELECT c.id, c.account_id, a.name AS account_name, c.template_id, t.name AS template_name,
                    t.description AS template_description, c.recipient_name, c.recipient_email, c.title,
                    c.issued_at, c.expires_at, c.status
               FROM certificates c JOIN accounts a ON a.id = c.account_id JOIN templates t ON t.id = c.template_id
              WHERE c.status <> 'Draft' AND NOT EXISTS (SELECT 1 FROM credentials cr WHERE cr.certificate_id = c.id)
                AND ($2::uuid IS NULL OR c.account_id = $2)
              ORDER BY c.account_id, c.id LIMIT $1 FOR UPDATE OF c SKIP LOCKED`,
            [batch, opts.accountId ?? null],
          );
          if (rows.length === 0) return true;
          const byIssue = new Map<string, typeof rows>();
          for (const r of rows) {
            const k = `${r.account_id}:${r.template_id}`;
            byIssue.set(k, [...(byIssue.get(k) ?? []), r]);
          }
          for (const group of byIssue.values()) {
            const first = group[0]!;
            const key = await currentKey(db, first.account_id);
            await this.issue(tx, key, {
              accountId: first.account_id,
              accountName: first.account_name,
              template: {
                id: first.template_id,
                name: first.template_name,
                description: first.template_description,
              },
              issuedAt: deps.now(),
              subjects: group.map((r) => ({
                certificateId: r.id,
                recipientName: r.recipient_name,
                recipientEmail: r.recipient_email,
                title: r.title,
                issuedAt: r.issued_at,
                expiresAt: r.expires_at,
              })),
            });
            for (const r of group) if (r.status === 'Revoked') await this.revoke(tx, r.account_id, r.id);
          }
          made += rows.length;
          return false;
        });
        if (done) return { made };
      }
    },

    // Sets the certificate's revocation bit, in the revocation's transaction.
    async revoke(tx: Queryable, accountId: string, certificateId: string): Promise<void> {
      const entry = await credentialsRepo.statusEntryOf(tx, accountId, certificateId);
      if (entry) await lists.setRevoked(tx, accountId, entry);
    },

    async credential(accountId: string, certificateId: string): Promise<Buffer | undefined> {
      return credentialsRepo.readCredential(db, accountId, certificateId);
    },

    async credentialByCode(code: string) {
      return credentialsRepo.credentialByCode(db, code);
    },

    issuerDid: didOf,
    canSign: deps.vault !== undefined,

    async didDocument(accountId: string) {
      if (!(await findAccount(db, accountId))) throw new NotFoundError('Issuer');
      if (deps.vault) await currentKey(db, accountId);
      const did = didOf(accountId);
      const keys = (await keysRepo.listKeys(db, accountId)).map(keyView);
      return {
        '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/multikey/v1'],
        id: did,
        verificationMethod: keys.map((k) => ({
          id: k.verificationMethod,
          type: 'Multikey',
          controller: did,
          publicKeyMultibase: k.publicKeyMultibase,
        })),
        assertionMethod: keys.map((k) => k.verificationMethod),
      };
    },

    // The signed BitstringStatusListCredential of list n, as bytes.
    async statusList(accountId: string, n: number): Promise<Buffer> {
      const list = await lists.readList(db, accountId, n);
      if (!list) throw new NotFoundError('Status list');
      const key = await currentKey(db, accountId);
      const cacheKey = `${accountId}:${n}:${list.updatedAt.toISOString()}:${key.id}`;
      let signed = signedLists.get(cacheKey);
      if (!signed) {
        const url = statusListUrl(publicBaseUrl, accountId, n);
        const validFrom = list.updatedAt.toISOString();
        signed = signDocument(
          {
            '@context': [VC_V2],
            id: url,
            type: ['VerifiableCredential', 'BitstringStatusListCredential'],
            issuer: didOf(accountId),
            validFrom,
            credentialSubject: {
              id: `${url}#list`,
              type: 'BitstringStatusList',
              statusPurpose: 'revocation',
              encodedList: `u${gzipSync(list.bits).toString('base64url')}`,
            },
          },
          signerOf(key),
          validFrom,
        ).then((doc) => Buffer.from(JSON.stringify(doc)));
        signed.catch(() => signedLists.delete(cacheKey));
        if (signedLists.size >= 256) signedLists.delete(signedLists.keys().next().value!);
        signedLists.set(cacheKey, signed);
      }
      return signed;
    },

    async listKeys(accountId: string): Promise<SigningKeyView[]> {
      if (!(await findAccount(db, accountId))) throw new NotFoundError('Account');
      return (await keysRepo.listKeys(db, accountId)).map(keyView);
    },

    // A new current key: credentials issued from now on, on every instance, are signed with it;
    // the retired one stays in the DID document, so what it signed keeps verifying.
    async rotate(accountId: string): Promise<SigningKeyView> {
      if (!(await findAccount(db, accountId))) throw new NotFoundError('Account');
      const key = newKey(accountId);
      await db.transaction((tx) => keysRepo.rotateKey(tx, key, deps.now()));
      return keyView((await keysRepo.currentKey(db, accountId))!);
    },
  };
}

export type CredentialsService = ReturnType<typeof createCredentialsService>;
