import { AppError } from '../../platform/errors.js';
import { uuidv7 } from '../../platform/ids.js';
import type { MailTransport } from './mail-transport.js';
import { parseMailAddress, sanitizeHeaderText, sendMessageId } from './mail-message.js';

// Emails to an account's people rather than to recipients (an invitation, a password reset link):
// sent at once over the service's mail path (SMTP, or .eml files under DATA_DIR/mail on the
// embedded default), not queued, because they carry a single-use link that is stored only hashed.
// A send that fails says so to the person who asked, who can ask again.

export interface AccountMailInput {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export function createAccountMail(deps: { transport: () => MailTransport; mailFrom: string }) {
  return {
    async send(input: AccountMailInput): Promise<void> {
      const id = uuidv7();
      try {
        await deps.transport().send({
          messageId: sendMessageId(id, deps.mailFrom),
          from: parseMailAddress(deps.mailFrom, 'sender'),
          to: parseMailAddress(input.to, 'recipient'),
          subject: sanitizeHeaderText(input.subject),
          text: input.text,
          html: input.html,
          attachments: [],
        });
      } catch (err) {
        throw new MailNotSentError(input.to, err);
      }
    },
  };
}

// A 503: the mail server did not take the message; nothing else was changed by the send.
export class MailNotSentError extends AppError {
  constructor(to: string, cause: unknown) {
    super(
      'service_unavailable',
      `The email to ${to} could not be sent (${(cause as Error).message ?? String(cause)}). Try again in a moment.`,
    );
    this.headers = { 'Retry-After': '5' };
  }
}

export type AccountMail = ReturnType<typeof createAccountMail>;
