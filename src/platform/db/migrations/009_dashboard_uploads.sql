-- The per-row results of a CSV upload in the dashboard, kept for their page and CSV download so
-- that no recipient text goes into a session. Rows past expires_at are purged with the sessions.
CREATE TABLE dashboard_uploads (
  id             uuid PRIMARY KEY,
  account_id     uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  template_name  text NOT NULL,
  created        integer NOT NULL,
  failed         integer NOT NULL,
  results        jsonb NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  expires_at     timestamptz NOT NULL
);
CREATE INDEX dashboard_uploads_expires_idx ON dashboard_uploads (expires_at);
