-- A certificate's expiry (issue 19), frozen at issue: the recipient's expiresAt or the issue time
-- plus the template's validity; NULL when it does not expire.
ALTER TABLE certificates ADD COLUMN expires_at timestamptz;

-- The list filters expired=true and expiresBefore (GET /certificates) read only expiring
-- certificates of one account.
CREATE INDEX certificates_account_expires_idx ON certificates (account_id, expires_at)
  WHERE expires_at IS NOT NULL;
