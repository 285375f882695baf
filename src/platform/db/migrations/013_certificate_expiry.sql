-- A certificate's expiry (issue 19), frozen at issue: the recipient's expiresAt or the issue time
-- plus the template's validity; NULL when it does not expire.
ALTER TABLE certificates ADD COLUMN expires_at timestamptz;

-- The list filters expired=true and expiresBefore (GET /certificates) read only expiring
-- certificates of one account.
CREATE INDEX certificates_account_expires_idx ON certificates (account_id, expires_at)
  WHERE expires_at IS NOT NULL;

-- Renewal reminders: the days before expiry of the reminders still to send (in the order they fall
-- due) and when the next one is due, both fixed at issue from the template's remindBeforeDays. The
-- email worker turns a due reminder into a send and moves next_reminder_at on, under the row lock,
-- so each reminder is queued once whatever the number of workers; revocation clears it.
ALTER TABLE certificates ADD COLUMN reminders integer[];
ALTER TABLE certificates ADD COLUMN next_reminder_at timestamptz;
CREATE INDEX certificates_next_reminder_idx ON certificates (next_reminder_at)
  WHERE next_reminder_at IS NOT NULL;

-- A send is the certificate email or a renewal reminder (remind_days before expiry); the unique
-- index is the backstop that keeps one reminder of each kind per certificate.
ALTER TABLE email_sends ADD COLUMN kind text NOT NULL DEFAULT 'certificate'
  CHECK (kind IN ('certificate', 'reminder'));
ALTER TABLE email_sends ADD COLUMN remind_days integer;
CREATE UNIQUE INDEX email_sends_reminder_once_idx ON email_sends (certificate_id, remind_days)
  WHERE kind = 'reminder';

-- Correct and reissue: the certificate that replaced a revoked one (its verification page links it).
ALTER TABLE certificates ADD COLUMN superseded_by uuid REFERENCES certificates(id);

-- Email on issue, and the dashboard's "Email all created": when an upload's certificates were
-- queued for email (at issue, or all at once later), so that they are emailed once.
ALTER TABLE dashboard_uploads ADD COLUMN emailed_at timestamptz;
