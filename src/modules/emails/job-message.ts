import { verificationUrl } from '../shared/certificate-links.js';
import type { Job } from './emails.repository.js';
import { buildCertificateMessage, sendMessageId, type MailMessage } from './mail-message.js';
import { buildReminderMessage } from './reminder-message.js';
import { buildWalletLinkMessage } from './wallet-link-message.js';
import { claimPageUrl } from '../shared/wallet-links.js';

// The email of a claimed send (emails.repository: claimJobs): the certificate email with its PDF,
// the renewal reminder, or the wallet link. `claimToken`: minted for this send (wallet-claims.ts), the
// secret of its "Add to your wallet" link. Throws when it cannot be built (an address or a URL that
// is refused).
export function messageForJob(
  job: Job,
  service: { mailFrom: string; publicBaseUrl: string },
  claimToken?: string,
): MailMessage {
  const claimUrl = claimToken === undefined ? undefined : claimPageUrl(service.publicBaseUrl, claimToken);
  const basics = {
    messageId: sendMessageId(job.id, service.mailFrom),
    from: service.mailFrom,
    to: job.recipient_email,
    recipientName: job.recipient_name,
    title: job.title,
    issuerName: job.issuer_name,
    verificationUrl: verificationUrl(service.publicBaseUrl, job.unique_code),
    uniqueCode: job.unique_code,
    locale: job.locale,
  };
  if (job.kind === 'reminder' && job.expires_at) {
    return buildReminderMessage({ ...basics, expiresAt: job.expires_at, renewalUrl: job.renewal_url });
  }
  if (job.kind === 'wallet_link') {
    if (!claimUrl) throw new Error('a wallet link email needs a claim token');
    return buildWalletLinkMessage({ ...basics, claimUrl });
  }
  return buildCertificateMessage({
    ...basics,
    claimUrl,
    credentialUrl: job.has_credential
      ? `${service.publicBaseUrl}/api/v1/verify/${job.unique_code}/credential`
      : undefined,
    issuedAt: job.issued_at ? job.issued_at.toISOString() : undefined,
    expiresAt: job.expires_at?.toISOString() ?? null,
    linkedinOrganizationId: job.linkedin_organization_id,
    pdf: job.pdf!, // read for every send but a reminder (emails.repository claim)
  });
}
