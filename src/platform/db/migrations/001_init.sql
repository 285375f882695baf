-- Plans: the catalog of decisions section 7. Seeded by the app from its configurable catalog.
CREATE TABLE plans (
  name            text PRIMARY KEY,
  api_access      boolean NOT NULL,
  email_delivery  boolean NOT NULL,
  monthly_limit   integer NOT NULL CHECK (monthly_limit >= 0)
);

CREATE TABLE accounts (
  id             uuid PRIMARY KEY,
  name           text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  plan           text NOT NULL REFERENCES plans(name),
  monthly_limit  integer CHECK (monthly_limit >= 0),
  created_at     timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE contracts (
  id              uuid PRIMARY KEY,
  account_id      uuid NOT NULL REFERENCES accounts(id),
  status          text NOT NULL CHECK (status IN ('active', 'ended')),
  starts_at       timestamptz NOT NULL,
  ends_at         timestamptz,
  email_delivery  boolean NOT NULL DEFAULT true,
  created_at      timestamptz NOT NULL DEFAULT now(),
  CHECK (ends_at IS NULL OR ends_at > starts_at)
);
CREATE INDEX contracts_account_idx ON contracts (account_id);

CREATE TABLE api_keys (
  id            uuid PRIMARY KEY,
  account_id    uuid NOT NULL REFERENCES accounts(id),
  name          text,
  prefix        text NOT NULL,
  key_hash      bytea NOT NULL UNIQUE,
  scopes        text[] NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  last_used_at  timestamptz,
  revoked_at    timestamptz
);
CREATE INDEX api_keys_account_idx ON api_keys (account_id);

CREATE TABLE users (
  id             uuid PRIMARY KEY,
  account_id     uuid NOT NULL REFERENCES accounts(id),
  email          text NOT NULL UNIQUE,
  password_hash  text NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE templates (
  id           uuid PRIMARY KEY,
  account_id   uuid NOT NULL REFERENCES accounts(id),
  name         text NOT NULL,
  description  text,
  fields       jsonb NOT NULL,
  design       jsonb NOT NULL,
  status       text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived')),
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX templates_account_idx ON templates (account_id, created_at DESC, id DESC);

-- One row per account and calendar month (UTC). The CHECK is the backstop; issuing reserves quota
-- under a row lock in the same transaction that inserts the certificates.
CREATE TABLE usage_periods (
  account_id    uuid NOT NULL REFERENCES accounts(id),
  period_start  date NOT NULL,
  used          integer NOT NULL DEFAULT 0 CHECK (used >= 0),
  quota         integer CHECK (quota IS NULL OR used <= quota),
  PRIMARY KEY (account_id, period_start)
);

CREATE TABLE certificates (
  id                  uuid PRIMARY KEY,
  account_id          uuid NOT NULL REFERENCES accounts(id),
  template_id         uuid NOT NULL REFERENCES templates(id),
  unique_code         text NOT NULL UNIQUE,
  recipient_name      text NOT NULL,
  recipient_email     text NOT NULL,
  data                jsonb NOT NULL DEFAULT '{}'::jsonb,
  status              text NOT NULL CHECK (status IN ('Draft', 'Issued', 'Revoked')),
  issued_at           timestamptz,
  revoked_at          timestamptz,
  revocation_reason   text,
  download_count      integer NOT NULL DEFAULT 0,
  email_count         integer NOT NULL DEFAULT 0,
  verification_count  integer NOT NULL DEFAULT 0,
  created_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX certificates_account_idx ON certificates (account_id, created_at DESC, id DESC);
CREATE INDEX certificates_account_status_idx ON certificates (account_id, status, created_at DESC, id DESC);

-- The frozen PDF, written in the same transaction as its certificate.
CREATE TABLE certificate_pdfs (
  certificate_id  uuid PRIMARY KEY REFERENCES certificates(id),
  pdf             bytea NOT NULL,
  sha256          text NOT NULL
);

-- Email sends: each row is also the job of the durable delivery queue.
CREATE TABLE email_sends (
  id               uuid PRIMARY KEY,
  account_id       uuid NOT NULL REFERENCES accounts(id),
  certificate_id   uuid NOT NULL REFERENCES certificates(id),
  recipient_email  text NOT NULL,
  status           text NOT NULL CHECK (status IN ('queued', 'sending', 'sent', 'failed')),
  attempts         integer NOT NULL DEFAULT 0,
  last_error       text,
  next_attempt_at  timestamptz NOT NULL DEFAULT now(),
  lease_until      timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now(),
  sent_at          timestamptz
);
CREATE INDEX email_sends_certificate_idx ON email_sends (certificate_id, created_at DESC, id DESC);
CREATE INDEX email_sends_due_idx ON email_sends (next_attempt_at) WHERE status IN ('queued', 'sending');

CREATE TABLE idempotency_keys (
  account_id     uuid NOT NULL REFERENCES accounts(id),
  key            text NOT NULL,
  fingerprint    text NOT NULL,
  status_code    integer,
  response_body  jsonb,
  created_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, key)
);
