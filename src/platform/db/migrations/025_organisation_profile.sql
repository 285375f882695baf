-- The organisation's profile (issue 29, decisions 21): what Settings > Organisation and
-- `certsvc account update` change beside the name. The logo is kept as uploaded (a PNG or JPEG
-- checked by content), its type and hash beside it so that reading the account never reads it.
ALTER TABLE accounts ADD COLUMN website text CHECK (website ~ '^https://');
ALTER TABLE accounts ADD COLUMN contact_email text;
ALTER TABLE accounts ADD COLUMN default_language text;
ALTER TABLE accounts ADD COLUMN logo bytea;
ALTER TABLE accounts ADD COLUMN logo_type text CHECK (logo_type IN ('image/png', 'image/jpeg'));
ALTER TABLE accounts ADD COLUMN logo_sha256 text;
ALTER TABLE accounts ADD CONSTRAINT accounts_logo_whole
  CHECK ((logo IS NULL) = (logo_type IS NULL) AND (logo IS NULL) = (logo_sha256 IS NULL));

-- The organisation's name a certificate was issued under, frozen at issue: a rename applies to what
-- is issued from then on (the verification shows both names). Certificates issued before this
-- column carry the account's name as it is now.
ALTER TABLE certificates ADD COLUMN issuer_name text;
UPDATE certificates c SET issuer_name = a.name FROM accounts a WHERE a.id = c.account_id;
ALTER TABLE certificates ALTER COLUMN issuer_name SET NOT NULL;

-- Issuing always writes the name; a row inserted without one (an older writer during a rolling
-- upgrade) takes the account's current name. The WHEN clause keeps the trigger off the issue path.
CREATE FUNCTION certificates_issuer_name() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT name INTO NEW.issuer_name FROM accounts WHERE id = NEW.account_id;
  RETURN NEW;
END $$;
CREATE TRIGGER certificates_issuer_name BEFORE INSERT ON certificates
  FOR EACH ROW WHEN (NEW.issuer_name IS NULL) EXECUTE FUNCTION certificates_issuer_name();
