import { verificationUrl } from '../shared/certificate-links.js';
import type { Job } from './emails.repository.js';
import { buildCertificateMessage, sendMessageId, type MailMessage } from './mail-message.js';
import { buildReminderMessage } from './reminder-message.js';

// The email of a claimed send (emails.repository: claimJobs): the certificate email with its PDF,
// or the renewal reminder. Throws when it cannot be built (an address or a URL that is refused).
export function messageForJob(job: Job, service: { mailFrom: string; publicBaseUrl: string }): MailMessage {
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
  return buildCertificateMessage({
    ...basics,
    credentialUrl: job.has_credential
      ? `${service.publicBaseUrl}/api/v1/verify/${job.unique_code}/credential`
      : undefined,
    issuedAt: job.issued_at ? job.issued_at.toISOString() : undefined,
    expiresAt: job.expires_at?.toISOString() ?? null,
    linkedinOrganizationId: job.linkedin_organization_id,
    pdf: job.pdf!, // read for every send but a reminder (emails.repository claim)
  });
}
