import { html } from '../../platform/html.js';
import { RECIPIENT_LINK_TTL_MS } from './recipient-links.js';

// The emails of the recipient's side that this module sends: the sign-in link of "My
// certificates", and the answer to a correction request (approved, with the corrected
// certificate's link; or rejected, with the reason). Each has a plain-text and an HTML part.

export interface MailBody {
  subject: string;
  text: string;
  html: string;
}

export function signInLinkMail(link: string): MailBody {
  const minutes = RECIPIENT_LINK_TTL_MS / 60_000;
  return {
    subject: 'Your certificates: sign-in link',
    text:
      `Someone (we hope you) asked to see the certificates issued to this address.\n\n` +
      `Open this link to see them. It works once, within ${minutes} minutes:\n\n${link}\n\n` +
      `If you did not ask, ignore this email: nothing is shown to anyone without the link.\n`,
    html: String(
      html`<p>Someone (we hope you) asked to see the certificates issued to this address.</p>
        <p>Open this link to see them. It works once, within ${minutes} minutes:</p>
        <p><a href="${link}">${link}</a></p>
        <p>If you did not ask, ignore this email: nothing is shown to anyone without the link.</p>`,
    ),
  };
}

export function correctionApprovedMail(input: {
  recipientName: string;
  title: string;
  issuerName: string;
  verificationUrl: string;
  myUrl: string;
}): MailBody {
  const { recipientName, title, issuerName, verificationUrl, myUrl } = input;
  return {
    subject: `Your correction was approved: ${title}`,
    text:
      `Dear ${recipientName},\n\n${issuerName} approved the correction you asked for to your certificate ` +
      `"${title}". The corrected certificate replaces the old one, which now links to it:\n\n${verificationUrl}\n\n` +
      `Its PDF and the other buttons are in My certificates: ${myUrl}\n`,
    html: String(
      html`<p>Dear ${recipientName},</p>
        <p>
          ${issuerName} approved the correction you asked for to your certificate “${title}”. The corrected
          certificate replaces the old one, which now links to it:
        </p>
        <p><a href="${verificationUrl}">${verificationUrl}</a></p>
        <p>Its PDF and the other buttons are in <a href="${myUrl}">My certificates</a>.</p>`,
    ),
  };
}

export function correctionRejectedMail(input: {
  recipientName: string;
  title: string;
  issuerName: string;
  reason: string;
  verificationUrl: string;
}): MailBody {
  const { recipientName, title, issuerName, reason, verificationUrl } = input;
  return {
    subject: `Your correction request was not accepted: ${title}`,
    text:
      `Dear ${recipientName},\n\n${issuerName} did not accept the correction you asked for to your certificate ` +
      `"${title}". Their reason:\n\n${reason}\n\nYour certificate stays as it is: ${verificationUrl}\n`,
    html: String(
      html`<p>Dear ${recipientName},</p>
        <p>
          ${issuerName} did not accept the correction you asked for to your certificate “${title}”. Their
          reason:
        </p>
        <blockquote>${reason}</blockquote>
        <p>Your certificate stays as it is: <a href="${verificationUrl}">${verificationUrl}</a></p>`,
    ),
  };
}
