import type { Db } from '../../platform/db/db.js';
import { ConflictError, NotFoundError } from '../../platform/errors.js';
import { EMAIL_MAX_LENGTH } from '../../platform/limits.js';
import { verificationUrl } from '../shared/certificate-links.js';
import { mintClaimToken } from '../shared/claim-tokens.js';
import { linkedInAddToProfileUrl } from '../shared/share-links.js';
import type { AccountMail } from '../emails/account-mail.js';
import {
  anyCertificateSentTo,
  certificateSentTo,
  certificatesSentTo,
  type SentCertificateRow,
} from './my-certificates.repository.js';
import {
  createRecipientLink,
  endRecipientSession,
  normalEmail,
  openRecipientSession,
  readRecipientSession,
  useRecipientLink,
  type RecipientSession,
} from './recipient-links.js';
import { signInLinkMail } from './recipient-mail.js';

// "My certificates" (issue 31 item 4, decisions 22): a recipient asks for a sign-in link at /my,
// and behind it sees every certificate issued to that address on this service, in every account.

export interface MyCertificate {
  id: string;
  uniqueCode: string;
  title: string;
  issuerName: string;
  recipientName: string;
  issuedAt: string;
  expiresAt: string | null;
  /** What the list says: valid, expired, revoked, or replaced by a correction. */
  state: 'valid' | 'expired' | 'revoked' | 'superseded';
  verificationUrl: string;
  linkedInUrl: string;
}

// A value that may be an address: the form's check (a real one is what the link proves).
export function looksLikeEmail(value: string): boolean {
  return value.length <= EMAIL_MAX_LENGTH && /^[^\s@\0]+@[^\s@\0]+$/.test(value);
}

export function stateOf(row: SentCertificateRow, now: Date): MyCertificate['state'] {
  if (row.superseded_by) return 'superseded';
  if (row.status === 'Revoked') return 'revoked';
  if (row.expires_at && row.expires_at.getTime() <= now.getTime()) return 'expired';
  return 'valid';
}

export function createRecipientsService(deps: {
  db: Db;
  now: () => Date;
  publicBaseUrl: string;
  mail: AccountMail;
}) {
  const { db } = deps;

  function view(row: SentCertificateRow, now: Date): MyCertificate {
    const url = verificationUrl(deps.publicBaseUrl, row.unique_code);
    return {
      id: row.id,
      uniqueCode: row.unique_code,
      title: row.title,
      issuerName: row.issuer_name,
      recipientName: row.recipient_name,
      issuedAt: row.issued_at.toISOString(),
      expiresAt: row.expires_at?.toISOString() ?? null,
      state: stateOf(row, now),
      verificationUrl: url,
      linkedInUrl: linkedInAddToProfileUrl({
        name: row.title,
        organizationName: row.issuer_name,
        organizationId: row.linkedin_organization_id,
        issuedAt: row.issued_at.toISOString(),
        expiresAt: row.expires_at?.toISOString() ?? null,
        certUrl: url,
        certId: row.unique_code,
      }),
    };
  }

  async function sentTo(email: string, id: string): Promise<SentCertificateRow> {
    const row = await certificateSentTo(db, normalEmail(email), id);
    if (!row) throw new NotFoundError('Certificate');
    return row;
  }

  return {
    /**
     * Prepares the sign-in link of `email` when a certificate was issued to it, and returns the send
     * to run after the answer (undefined when there is nothing to send). The caller answers the same
     * either way; a failed send is the caller's to log.
     */
    async prepareLink(email: string): Promise<(() => Promise<void>) | undefined> {
      const address = normalEmail(email);
      if (!(await anyCertificateSentTo(db, address))) return undefined;
      const path = await createRecipientLink(db, address, deps.now());
      return () => deps.mail.send({ to: address, ...signInLinkMail(`${deps.publicBaseUrl}${path}`) });
    },

    /** Uses a sign-in link and opens a session: the cookie's value and when it ends. */
    async enter(token: string): Promise<{ id: string; expiresAt: Date }> {
      const now = deps.now();
      const email = await useRecipientLink(db, token, now);
      return openRecipientSession(db, email, now);
    },

    session(id: string): Promise<RecipientSession | undefined> {
      return readRecipientSession(db, id, deps.now());
    },

    signOut(id: string): Promise<void> {
      return endRecipientSession(db, id);
    },

    async list(email: string): Promise<MyCertificate[]> {
      const now = deps.now();
      return (await certificatesSentTo(db, normalEmail(email))).map((row) => view(row, now));
    },

    async get(email: string, id: string): Promise<MyCertificate & { accountId: string }> {
      const row = await sentTo(email, id);
      return { ...view(row, deps.now()), accountId: row.account_id };
    },

    /**
     * A new claim token for the certificate ("Add to your wallet", "Download badge"): the wallet
     * pages take it from there. Not for a revoked or replaced certificate (its tokens are ended).
     */
    async walletToken(email: string, id: string): Promise<string> {
      const row = await sentTo(email, id);
      const state = stateOf(row, deps.now());
      if (state === 'revoked' || state === 'superseded') {
        throw new ConflictError('This certificate has been revoked: it can no longer be added to a wallet.');
      }
      return mintClaimToken(db, row.id, deps.now());
    },
  };
}

export type RecipientsService = ReturnType<typeof createRecipientsService>;
