-- Each user's own sign-in security (issue 29, decisions 21): two-factor sign-in with TOTP and
-- single-use recovery codes, and the owner's "require two-factor for everyone".

-- The TOTP secret, sealed under SIGNING_KEYS_SECRET (AES-256-GCM, the user's id as associated
-- data, as the signing keys are): the one in use, and the one being set up until a code confirms it.
ALTER TABLE users ADD COLUMN two_factor_secret bytea;
ALTER TABLE users ADD COLUMN two_factor_pending_secret bytea;
-- The last TOTP time step accepted, so that a code works once.
ALTER TABLE users ADD COLUMN two_factor_last_step bigint;

-- Recovery codes: only their SHA-256 is kept; a used code's row is deleted.
CREATE TABLE user_recovery_codes (
  user_id    uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  code_hash  text NOT NULL,
  PRIMARY KEY (user_id, code_hash)
);

ALTER TABLE accounts ADD COLUMN require_two_factor boolean NOT NULL DEFAULT false;

