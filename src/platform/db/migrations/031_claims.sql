-- Claiming a certificate into a wallet (issue 31, decisions 22). A claim token is the secret in the
-- "Add to your wallet" link: 32 random bytes (base64url) in the link, only their SHA-256 here. It is
-- valid 30 days and for at most 5 successful claims. A certificate that is revoked or superseded
-- (reissued) ends its tokens: that is read from the certificate when a token is used, so revoking
-- and reissuing write nothing here. A token is minted when a link is sent (the certificate email,
-- "Email me the wallet link"), never at issue.
CREATE TABLE claim_tokens (
  id              uuid PRIMARY KEY,
  certificate_id  uuid NOT NULL REFERENCES certificates(id) ON DELETE CASCADE,
  account_id      uuid NOT NULL REFERENCES accounts(id),
  token_sha256    bytea NOT NULL UNIQUE,
  created_at      timestamptz NOT NULL,
  expires_at      timestamptz NOT NULL,
  claims_used     integer NOT NULL DEFAULT 0 CHECK (claims_used BETWEEN 0 AND 5)
);
CREATE INDEX claim_tokens_certificate_idx ON claim_tokens (certificate_id);

-- Every successful claim: when, by which holder (the DID the wallet proved), by which protocol and
-- in which format. Shown on the certificate's dashboard page.
CREATE TABLE credential_claims (
  id              uuid PRIMARY KEY,
  claim_token_id  uuid NOT NULL REFERENCES claim_tokens(id) ON DELETE CASCADE,
  certificate_id  uuid NOT NULL REFERENCES certificates(id) ON DELETE CASCADE,
  account_id      uuid NOT NULL REFERENCES accounts(id),
  claimed_at      timestamptz NOT NULL,
  holder_did      text NOT NULL,
  protocol        text NOT NULL CHECK (protocol IN ('vcapi', 'OID4VCI')),
  format          text NOT NULL CHECK (format IN ('ldp_vc', 'dc+sd-jwt'))
);
CREATE INDEX credential_claims_certificate_idx ON credential_claims (certificate_id, claimed_at DESC);
