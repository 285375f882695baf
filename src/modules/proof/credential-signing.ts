import { letOthersIn } from '../../platform/event-loop.js';
import { signFromTemplate, type Signer } from '../../platform/proof/data-integrity.js';
import { compileRdfTemplate, type RdfTemplate } from '../../platform/proof/rdf-template.js';
import { issuerDid, statusListUrl } from '../shared/issuer-identity.js';
import type { NewCredential } from './credentials.repository.js';
import {
  CREDENTIAL_SHAPE,
  EXPIRING_CREDENTIAL_SHAPE,
  openBadgeCredential,
  type CredentialFacts,
} from './open-badge.js';
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

// The facts of a subject's credential at its status entry (what openBadgeCredential fills in).
export function credentialFacts(
  publicBaseUrl: string,
  issue: Omit<CredentialIssue, 'subjects'>,
  subject: CredentialSubject,
  entry: StatusEntry,
): CredentialFacts {
  return {
    certificateId: subject.certificateId,
    issuedAt: (subject.issuedAt ?? issue.issuedAt).toISOString(),
    issuerDid: issuerDid(publicBaseUrl, issue.accountId),
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
  };
}

/** The two shapes' RDF templates, compiled on first use (once per process or thread). */
export function credentialTemplates(): () => Promise<[RdfTemplate, RdfTemplate]> {
  let shape: Promise<RdfTemplate> | undefined;
  let expiringShape: Promise<RdfTemplate> | undefined;
  return () =>
    Promise.all([
      (shape ??= compileRdfTemplate(CREDENTIAL_SHAPE)),
      (expiringShape ??= compileRdfTemplate(EXPIRING_CREDENTIAL_SHAPE)),
    ]);
}

/** A credential signed (the template of its shape) and frozen: its bytes as stored and attached. */
export async function signedCredential(
  facts: CredentialFacts,
  templates: [RdfTemplate, RdfTemplate],
  signer: Signer,
  signedAt: string,
): Promise<Buffer> {
  const { document, values } = openBadgeCredential(facts);
  const template = facts.expiresAt ? templates[1] : templates[0];
  const signed = await signFromTemplate(document, template, values, signer, signedAt);
  return Buffer.from(JSON.stringify(signed, null, 2));
}

export function createCredentialSigning(publicBaseUrl: string) {
  const templates = credentialTemplates();

  return {
    /** Compiles the two shapes once (beside other work, before the first signature is wanted). */
    async ready(): Promise<void> {
      await templates();
    },

    /** The credential of each subject at its status entry (one per subject, in order), signed by `key`. */
    async sign(key: CredentialKey, issue: CredentialIssue, entries: StatusEntry[]): Promise<NewCredential[]> {
      const shapes = await templates();
      const signedAt = issue.issuedAt.toISOString();
      const items: NewCredential[] = [];
      for (const [i, subject] of issue.subjects.entries()) {
        await letOthersIn(i);
        const entry = entries[i]!;
        const facts = credentialFacts(publicBaseUrl, issue, subject, entry);
        items.push({
          certificateId: subject.certificateId,
          statusList: entry.list,
          statusIndex: entry.index,
          signingKeyId: key.id,
          body: await signedCredential(facts, shapes, key.signer, signedAt),
        });
      }
      return items;
    },
  };
}

export type CredentialSigning = ReturnType<typeof createCredentialSigning>;
