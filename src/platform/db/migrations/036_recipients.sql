-- The recipient's side, part two (issue 31, decisions 22): "My certificates" and correction requests.

-- A sign-in link of "My certificates": 32 random bytes (base64url) in the emailed link, only their
-- SHA-256 here. Single use, valid 30 minutes. The address is stored lower-cased.
CREATE TABLE recipient_links (
  id            uuid PRIMARY KEY,
  email         text NOT NULL,
  token_sha256  bytea NOT NULL UNIQUE,
  created_at    timestamptz NOT NULL,
  expires_at    timestamptz NOT NULL,
  used_at       timestamptz
);

-- A recipient's session, opened by a sign-in link: a table of its own, never a dashboard session.
-- Keyed by the SHA-256 of the cookie's value; `csrf` is the token of its forms.
CREATE TABLE recipient_sessions (
  id_hash     bytea PRIMARY KEY,
  email       text NOT NULL,
  csrf        text NOT NULL,
  created_at  timestamptz NOT NULL,
  expires_at  timestamptz NOT NULL
);
CREATE INDEX recipient_sessions_expiry_idx ON recipient_sessions (expires_at);

-- "My certificates" lists every certificate sent to an address, in every account.
CREATE INDEX certificates_recipient_email_any_idx ON certificates (lower(recipient_email), issued_at DESC);

-- A recipient's request to correct a certificate: the corrected name (null: unchanged) and field
-- values (only those changed), and a note. At most one open request per certificate. Approving is a
-- reissue (the new certificate in new_certificate_id); rejecting keeps the reason, which the
-- recipient is told.
CREATE TABLE correction_requests (
  id                  uuid PRIMARY KEY,
  account_id          uuid NOT NULL REFERENCES accounts(id),
  certificate_id      uuid NOT NULL REFERENCES certificates(id) ON DELETE CASCADE,
  requested_name      text,
  requested_data      jsonb NOT NULL DEFAULT '{}'::jsonb,
  note                text NOT NULL DEFAULT '',
  via                 text NOT NULL CHECK (via IN ('my', 'claim')),
  status              text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'approved', 'rejected')),
  created_at          timestamptz NOT NULL,
  decided_at          timestamptz,
  decided_by          text,
  reason              text,
  new_certificate_id  uuid REFERENCES certificates(id)
);
CREATE UNIQUE INDEX correction_requests_open_idx ON correction_requests (certificate_id) WHERE status = 'open';
CREATE INDEX correction_requests_account_idx ON correction_requests (account_id, status, created_at DESC);
