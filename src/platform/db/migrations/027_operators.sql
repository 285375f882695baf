-- The instance's operators (issue 29, decisions 21): people of the service itself, separate from any
-- account, who sign in at /admin with two-factor required. The TOTP secret is sealed under
-- SIGNING_KEYS_SECRET (AES-256-GCM, the operator's id as associated data); totp_enabled_at stays
-- null until the operator has confirmed it with a code; totp_last_step refuses a code used twice.
CREATE TABLE operators (
  id               uuid PRIMARY KEY,
  email            text NOT NULL UNIQUE,
  password_hash    text NOT NULL,
  totp_secret      bytea,
  totp_enabled_at  timestamptz,
  totp_last_step   bigint,
  created_at       timestamptz NOT NULL DEFAULT now()
);

-- Operators' sign-in sessions at /admin: as dashboard_sessions (only the SHA-256 of the id), a table
-- of their own, so that no account user's session can ever be read as an operator's.
CREATE TABLE operator_sessions (
  id_hash      bytea PRIMARY KEY,
  operator_id  uuid REFERENCES operators(id) ON DELETE CASCADE,
  data         jsonb NOT NULL,
  expires_at   timestamptz NOT NULL,
  updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX operator_sessions_expires_idx ON operator_sessions (expires_at);

-- An operator suspends an account: its API keys answer 403 and its users cannot sign in until it is
-- resumed (null: not suspended).
ALTER TABLE accounts ADD COLUMN suspended_at timestamptz;
