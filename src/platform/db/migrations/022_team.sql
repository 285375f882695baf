-- The team (issue 29): invitations by email and password reset links. Each link's token is random
-- and only its SHA-256 is stored, so a copy of these tables opens nothing.
CREATE TABLE invitations (
  id                  uuid PRIMARY KEY,
  account_id          uuid NOT NULL REFERENCES accounts(id),
  email               text NOT NULL,
  role                text NOT NULL CHECK (role IN ('owner', 'admin', 'issuer', 'designer', 'viewer')),
  token_hash          bytea NOT NULL UNIQUE,
  invited_by_user_id  uuid,
  invited_by_label    text,
  expires_at          timestamptz NOT NULL,
  accepted_at         timestamptz,
  cancelled_at        timestamptz,
  created_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX invitations_account_idx ON invitations (account_id, created_at DESC);

-- A single-use link to choose a new password (an hour): `certsvc user reset-password`, and the
-- sign-in page's "Forgot password".
CREATE TABLE password_resets (
  id          uuid PRIMARY KEY,
  user_id     uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  token_hash  bytea NOT NULL UNIQUE,
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX password_resets_user_idx ON password_resets (user_id);
