-- Signed PDFs (decisions section 18): each account signs its PDFs with an X.509 certificate, by
-- default a self-signed one made for it (ECDSA P-256), or one imported from PKCS#12 (its chain kept
-- for the signatures). The private key is sealed under SIGNING_KEYS_SECRET like the credential keys.
-- One current certificate per account (retired_at NULL).
CREATE TABLE pdf_signing_certificates (
  id           uuid PRIMARY KEY,
  account_id   uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  certificate  bytea NOT NULL,
  chain        bytea[] NOT NULL DEFAULT '{}',
  private_key  bytea NOT NULL,
  source       text NOT NULL CHECK (source IN ('generated', 'imported')),
  created_at   timestamptz NOT NULL DEFAULT now(),
  retired_at   timestamptz
);
CREATE UNIQUE INDEX pdf_signing_certificates_current_idx ON pdf_signing_certificates (account_id)
  WHERE retired_at IS NULL;
CREATE INDEX pdf_signing_certificates_account_idx ON pdf_signing_certificates (account_id, created_at);

-- Which certificate signed a frozen PDF; NULL for PDFs frozen before PDFs were signed.
ALTER TABLE certificate_pdfs ADD COLUMN signed_by uuid REFERENCES pdf_signing_certificates(id);
