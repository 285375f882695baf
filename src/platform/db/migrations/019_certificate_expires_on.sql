-- The issuer's calendar day of a certificate's expiry: the date part of expiresAt as the issuer
-- wrote it (2028-11-26T00:00:00+01:00 -> 2028-11-26), which pages show ("Valid until 26 November
-- 2028") while expires_at keeps the instant that decides expiry (2028-11-25T23:00:00Z). NULL when
-- the expiry came from the template's validity, or for certificates issued before this was
-- recorded: the UTC day of expires_at is shown then.
ALTER TABLE certificates ADD COLUMN expires_on date;
