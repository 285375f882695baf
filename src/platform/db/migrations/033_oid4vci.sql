-- OpenID for Verifiable Credential Issuance 1.0, pre-authorized code flow (issue 31, decisions 22).
-- Every secret is stored as its SHA-256 only: the pre-authorized code of a credential offer, the
-- access token the token endpoint gives for it, and the c_nonce a key proof must carry.

-- A credential offer's pre-authorized code: minted each time the offer is fetched with a claim
-- token, short-lived, and exchanged at most once (used_at set by the exchange).
CREATE TABLE oid4vci_pre_authorized_codes (
  id              uuid PRIMARY KEY,
  claim_token_id  uuid NOT NULL REFERENCES claim_tokens(id) ON DELETE CASCADE,
  account_id      uuid NOT NULL REFERENCES accounts(id),
  code_sha256     bytea NOT NULL UNIQUE,
  created_at      timestamptz NOT NULL,
  expires_at      timestamptz NOT NULL,
  used_at         timestamptz
);
CREATE INDEX oid4vci_pre_authorized_codes_expiry_idx ON oid4vci_pre_authorized_codes (expires_at);

-- A bearer access token, bound to the claim token its code came from. The claim token's own rules
-- (expired, used up, revoked, superseded) are checked again at each credential request.
CREATE TABLE oid4vci_access_tokens (
  id              uuid PRIMARY KEY,
  claim_token_id  uuid NOT NULL REFERENCES claim_tokens(id) ON DELETE CASCADE,
  account_id      uuid NOT NULL REFERENCES accounts(id),
  token_sha256    bytea NOT NULL UNIQUE,
  created_at      timestamptz NOT NULL,
  expires_at      timestamptz NOT NULL
);
CREATE INDEX oid4vci_access_tokens_expiry_idx ON oid4vci_access_tokens (expires_at);

-- A c_nonce from the nonce endpoint of one issuer (account): single use, consumed in the
-- transaction that records the claim.
CREATE TABLE oid4vci_nonces (
  nonce_sha256    bytea PRIMARY KEY,
  account_id      uuid NOT NULL REFERENCES accounts(id),
  created_at      timestamptz NOT NULL,
  expires_at      timestamptz NOT NULL,
  used_at         timestamptz
);
CREATE INDEX oid4vci_nonces_expiry_idx ON oid4vci_nonces (expires_at);
