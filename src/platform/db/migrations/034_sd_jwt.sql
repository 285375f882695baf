-- SD-JWT VCs (issue 31, decisions 22): each account signs them with an ES256 (P-256) key of its own,
-- sealed under SIGNING_KEYS_SECRET like its other signing keys (AES-256-GCM, the key's id as
-- associated data). One current key per account (retired_at NULL); retired ones stay published in
-- the DID document and the JWT VC issuer metadata. Made on first use (docs/proof.md).
CREATE TABLE sd_jwt_keys (
  id           uuid PRIMARY KEY,
  account_id   uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  public_jwk   jsonb NOT NULL,
  private_key  bytea NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  retired_at   timestamptz
);
CREATE UNIQUE INDEX sd_jwt_keys_current_idx ON sd_jwt_keys (account_id) WHERE retired_at IS NULL;
CREATE INDEX sd_jwt_keys_account_idx ON sd_jwt_keys (account_id, created_at);

-- IETF Token Status Lists of an account: 131,072 one-bit statuses each (16 KiB), in the order the
-- Token Status List says (entry i is bit i % 8, counted from the least significant bit, of byte
-- i / 8), which is PostgreSQL's set_bit order. `used` counts the entries given out.
CREATE TABLE token_status_lists (
  account_id   uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  n            integer NOT NULL CHECK (n >= 0),
  bits         bytea NOT NULL,
  used         integer NOT NULL DEFAULT 0,
  updated_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, n)
);

-- A certificate's entry in them, taken when its first SD-JWT VC is issued (never at issue): every
-- SD-JWT VC of the certificate points at it, and revoking the certificate sets its bit.
CREATE TABLE token_status_entries (
  certificate_id  uuid PRIMARY KEY REFERENCES certificates(id) ON DELETE CASCADE,
  account_id      uuid NOT NULL,
  list            integer NOT NULL,
  idx             integer NOT NULL CHECK (idx >= 0 AND idx < 131072),
  UNIQUE (account_id, list, idx),
  FOREIGN KEY (account_id, list) REFERENCES token_status_lists (account_id, n)
);
