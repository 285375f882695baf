-- The quota in view (issue 29): an upload with more rows than the period has left is held, parsed
-- and checked, until the user chooses to issue the first N of its rows or cancels; and the failed
-- rows of an import can be retried, once, as a new import.

-- A held upload: its recipients (as an import stores them) until it is started or cancelled. Holds
-- older than a day are dropped when the next one is made.
CREATE TABLE import_holds (
  id           uuid PRIMARY KEY,
  account_id   uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  template_id  uuid NOT NULL REFERENCES templates(id),
  file_name    text NOT NULL,
  created_by   text NOT NULL,
  rows         integer NOT NULL CHECK (rows > 0),
  recipients   jsonb NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX import_holds_created_idx ON import_holds (created_at);

-- retry_of: the import whose failed rows this one retries. retried_by: the import that retried this
-- one's failed rows (set once: its failed rows are retried at most once, so none is issued twice).
ALTER TABLE imports
  ADD COLUMN retry_of   uuid REFERENCES imports(id) ON DELETE SET NULL,
  ADD COLUMN retried_by uuid;
