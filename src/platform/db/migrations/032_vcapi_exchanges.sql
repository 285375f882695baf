-- The VC API exchanges of claim tokens (issue 31, decisions 22). A wallet starts one with POST {} at
-- the token's exchange URL and gets a DIDAuthentication request with a fresh challenge; its
-- presentation must answer that challenge within 15 minutes, once. The challenge names the exchange
-- (one exchange URL per token, several exchanges may be open on it).
CREATE TABLE vcapi_exchanges (
  id              uuid PRIMARY KEY,
  claim_token_id  uuid NOT NULL REFERENCES claim_tokens(id) ON DELETE CASCADE,
  challenge       text NOT NULL UNIQUE,
  created_at      timestamptz NOT NULL,
  expires_at      timestamptz NOT NULL,
  used_at         timestamptz
);
CREATE INDEX vcapi_exchanges_token_idx ON vcapi_exchanges (claim_token_id);

-- "Email me the wallet link" (the verification page) queues a send of its own kind: the link to the
-- claim page, no PDF.
ALTER TABLE email_sends DROP CONSTRAINT IF EXISTS email_sends_kind_check;
ALTER TABLE email_sends ADD CONSTRAINT email_sends_kind_check
  CHECK (kind IN ('certificate', 'reminder', 'wallet_link'));
