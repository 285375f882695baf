-- Portable proof (decisions section 18). Each account signs with Ed25519 keys; the private key is
-- stored encrypted under SIGNING_KEYS_SECRET (AES-256-GCM: nonce, tag, ciphertext), never in clear.
-- One current key per account (retired_at NULL); retired keys stay listed in the DID document so
-- that credentials signed before a rotation keep verifying.
CREATE TABLE signing_keys (
  id           uuid PRIMARY KEY,
  account_id   uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  public_key   bytea NOT NULL CHECK (length(public_key) = 32),
  private_key  bytea NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  retired_at   timestamptz
);
CREATE UNIQUE INDEX signing_keys_current_idx ON signing_keys (account_id) WHERE retired_at IS NULL;
CREATE INDEX signing_keys_account_idx ON signing_keys (account_id, created_at);

-- The revocation status lists of an account: 131,072 entries each (16 KiB), bit 0 the leftmost, as
-- the Bitstring Status List says. `used` counts the entries given out.
CREATE TABLE status_lists (
  account_id   uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  n            integer NOT NULL CHECK (n >= 0),
  bits         bytea NOT NULL,
  used         integer NOT NULL DEFAULT 0,
  updated_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, n)
);

-- The signed credential of a certificate, frozen: the same bytes forever.
CREATE TABLE credentials (
  certificate_id  uuid PRIMARY KEY REFERENCES certificates(id) ON DELETE CASCADE,
  account_id      uuid NOT NULL,
  status_list     integer NOT NULL,
  status_index    integer NOT NULL CHECK (status_index >= 0 AND status_index < 131072),
  signing_key_id  uuid NOT NULL REFERENCES signing_keys(id),
  body            bytea NOT NULL,
  UNIQUE (account_id, status_list, status_index)
);
