import { letOthersIn } from '../../platform/event-loop.js';
import { signFromTemplate } from '../../platform/proof/data-integrity.js';
import { compileRdfTemplate, type RdfTemplate } from '../../platform/proof/rdf-template.js';
import { issuerDid, statusListUrl } from '../shared/issuer-identity.js';
import type { NewCredential } from './credentials.repository.js';
import { CREDENTIAL_SHAPE, EXPIRING_CREDENTIAL_SHAPE, openBadgeCredential } from './open-badge.js';
import type { CredentialKey } from './signing-keys.service.js';
import type { StatusEntry } from './status-lists.repository.js';

// The signing of certificates' Open Badges credentials, the fast way: one RDF template per document
// shape (without and with validUntil), filled and signed per credential (eddsa-rdfc-2022).

// What a certificate's credential says, beyond what the issue says of all of them.
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
  /** recipientDescription: the design's, what recipients and wallets see (not its internal description). */
  template: { id: string; name: string; recipientDescription: string | null };
  issuedAt: Date;
  subjects: CredentialSubject[];
}

export function createCredentialSigning(publicBaseUrl: string) {
  let shape: Promise<RdfTemplate> | undefined;
  let expiringShape: Promise<RdfTemplate> | undefined;
  const templates = () =>
    Promise.all([
      (shape ??= compileRdfTemplate(CREDENTIAL_SHAPE)),
      (expiringShape ??= compileRdfTemplate(EXPIRING_CREDENTIAL_SHAPE)),
    ]);

  return {
    /** Compiles the two shapes once (beside other work, before the first signature is wanted). */
    async ready(): Promise<void> {
      await templates();
    },

    /** The credential of each subject at its status entry (one per subject, in order), signed by `key`. */
    async sign(key: CredentialKey, issue: CredentialIssue, entries: StatusEntry[]): Promise<NewCredential[]> {
      const [template, expiring] = await templates();
      const signedAt = issue.issuedAt.toISOString();
      const did = issuerDid(publicBaseUrl, issue.accountId);
      const items: NewCredential[] = [];
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
          recipientDescription: issue.template.recipientDescription,
          statusListUrl: statusListUrl(publicBaseUrl, issue.accountId, entry.list),
          statusIndex: entry.index,
          expiresAt: subject.expiresAt?.toISOString() ?? null,
        });
        const signed = await signFromTemplate(
          document,
          subject.expiresAt ? expiring : template,
          values,
          key.signer,
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
    },
  };
}

export type CredentialSigning = ReturnType<typeof createCredentialSigning>;
