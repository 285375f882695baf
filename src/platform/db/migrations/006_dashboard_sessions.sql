-- Dashboard sign-in sessions (server-side). The cookie carries a random session id; only its SHA-256
-- is stored, so that a copy of this table cannot be replayed as cookies. Rows past expires_at are
-- ignored on read and purged by the server hourly.
CREATE TABLE dashboard_sessions (
  id_hash     bytea PRIMARY KEY,
  user_id     uuid REFERENCES users(id) ON DELETE CASCADE,
  data        jsonb NOT NULL,
  expires_at  timestamptz NOT NULL,
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX dashboard_sessions_expires_idx ON dashboard_sessions (expires_at);

-- Secrets the instances of one deployment share (the session cookie signing key), made by the first
-- instance that needs one, so that no setting is needed and every instance signs alike.
CREATE TABLE instance_secrets (
  name        text PRIMARY KEY,
  value       text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
