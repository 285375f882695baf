-- The organisation (issue 29, decisions 21): a role per user, who made each API key, and the audit
-- trail. Existing users become owners.
ALTER TABLE users ADD COLUMN role text NOT NULL DEFAULT 'owner'
  CHECK (role IN ('owner', 'admin', 'issuer', 'designer', 'viewer'));
CREATE INDEX users_account_idx ON users (account_id);
-- What Settings > Team shows of each user (the two-factor secret itself: migration 023).
ALTER TABLE users ADD COLUMN last_sign_in_at timestamptz;
ALTER TABLE users ADD COLUMN two_factor_enabled_at timestamptz;

-- Keys stay the account's when the user who made them leaves: the email keeps naming them.
ALTER TABLE api_keys ADD COLUMN created_by_user_id uuid;
ALTER TABLE api_keys ADD COLUMN created_by_label text;

-- One row per change, chained per account: hash = SHA-256(prev_hash || RFC 8785 JSON of the event),
-- the first event of an account chained from 32 zero bytes (src/modules/audit/audit-chain.ts).
CREATE TABLE audit_events (
  id           uuid PRIMARY KEY,
  account_id   uuid NOT NULL REFERENCES accounts(id),
  seq          bigint NOT NULL CHECK (seq >= 1),
  occurred_at  timestamptz NOT NULL,
  actor_type   text NOT NULL CHECK (actor_type IN ('user', 'api_key', 'cli', 'system', 'operator')),
  actor_id     text,
  actor_label  text,
  action       text NOT NULL,
  target_type  text,
  target_id    text,
  ip           text,
  request_id   text,
  changes      jsonb NOT NULL DEFAULT '{}',
  prev_hash    bytea NOT NULL,
  hash         bytea NOT NULL,
  UNIQUE (account_id, seq)
);
CREATE INDEX audit_events_list_idx ON audit_events (account_id, occurred_at DESC, seq DESC);

-- Each account's last event: taken FOR UPDATE by every append, so an account's events are chained
-- one writer at a time, and a deleted tail is found (the head names a later event than the table).
CREATE TABLE audit_heads (
  account_id  uuid PRIMARY KEY REFERENCES accounts(id),
  seq         bigint NOT NULL DEFAULT 0,
  hash        bytea NOT NULL DEFAULT decode(repeat('00', 32), 'hex')
);
INSERT INTO audit_heads (account_id) SELECT id FROM accounts;

CREATE FUNCTION audit_head_for_account() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO audit_heads (account_id) VALUES (NEW.id) ON CONFLICT DO NOTHING;
  RETURN NEW;
END $$;
CREATE TRIGGER accounts_audit_head AFTER INSERT ON accounts
  FOR EACH ROW EXECUTE FUNCTION audit_head_for_account();

-- Append-only: the service's own role cannot change or remove an event (a superuser who disables
-- the trigger can, and `certsvc audit verify` then names the row).
CREATE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_events is append-only' USING ERRCODE = 'insufficient_privilege';
END $$;
CREATE TRIGGER audit_events_no_update BEFORE UPDATE OR DELETE ON audit_events
  FOR EACH ROW EXECUTE FUNCTION audit_events_append_only();
CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events
  FOR EACH STATEMENT EXECUTE FUNCTION audit_events_append_only();

-- Appends an account's events, given as their canonical JSON (decisions 21: the API's event shape,
-- RFC 8785), in order: takes the account's head FOR UPDATE, chains each event from the one before
-- and inserts them in one statement. One round trip, whether called in a transaction or alone.
CREATE FUNCTION audit_append(p_account uuid, p_bodies text[]) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  h_seq   bigint;
  h_hash  bytea;
  prevs   bytea[] := '{}';
  hashes  bytea[] := '{}';
  b       text;
BEGIN
  SELECT seq, hash INTO h_seq, h_hash FROM audit_heads WHERE account_id = p_account FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'no audit head for account %', p_account;
  END IF;
  FOREACH b IN ARRAY p_bodies LOOP
    prevs := prevs || h_hash;
    h_hash := sha256(h_hash || convert_to(b, 'UTF8'));
    hashes := hashes || h_hash;
  END LOOP;
  INSERT INTO audit_events (id, account_id, seq, occurred_at, actor_type, actor_id, actor_label, action,
                            target_type, target_id, ip, request_id, changes, prev_hash, hash)
  SELECT (e->>'id')::uuid, p_account, h_seq + n, (e->>'occurredAt')::timestamptz,
         e#>>'{actor,type}', e#>>'{actor,id}', e#>>'{actor,label}', e->>'action',
         e#>>'{target,type}', e#>>'{target,id}', e->>'ip', e->>'requestId',
         COALESCE(e->'changes', '{}'::jsonb), prevs[n], hashes[n]
    FROM unnest(p_bodies) WITH ORDINALITY AS t(body, n), LATERAL (SELECT body::jsonb AS e) j;
  h_seq := h_seq + coalesce(array_length(p_bodies, 1), 0);
  UPDATE audit_heads SET seq = h_seq, hash = h_hash WHERE account_id = p_account;
  RETURN h_seq;
END $$;
