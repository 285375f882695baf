-- Large imports (decisions section 20): a CSV of up to 50,000 rows issued as a durable job. The rows
-- are stored at upload; chunks of them are claimed by any instance's workers (FOR UPDATE SKIP
-- LOCKED) and issued one chunk per transaction together with the rows' results and the chunk's
-- `done`, so a killed worker loses nothing and issues nothing twice.
CREATE TABLE imports (
  id           uuid PRIMARY KEY,
  account_id   uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  template_id  uuid NOT NULL REFERENCES templates(id),
  file_name    text NOT NULL,
  created_by   text NOT NULL,
  rows         integer NOT NULL CHECK (rows > 0),
  state        text NOT NULL DEFAULT 'queued'
                 CHECK (state IN ('queued', 'running', 'done', 'cancelled', 'failed')),
  done_rows    integer NOT NULL DEFAULT 0,
  created      integer NOT NULL DEFAULT 0,
  failed       integer NOT NULL DEFAULT 0,
  error        text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  started_at   timestamptz,
  finished_at  timestamptz
);
CREATE INDEX imports_account_idx ON imports (account_id, created_at DESC);

CREATE TABLE import_rows (
  import_id       uuid NOT NULL REFERENCES imports(id) ON DELETE CASCADE,
  row_no          integer NOT NULL,
  line            integer NOT NULL,
  name            text NOT NULL,
  email           text NOT NULL,
  data            jsonb NOT NULL,
  status          text CHECK (status IN ('created', 'failed')),
  certificate_id  uuid,
  unique_code     text,
  reason          text,
  PRIMARY KEY (import_id, row_no)
);

CREATE TABLE import_chunks (
  import_id  uuid NOT NULL REFERENCES imports(id) ON DELETE CASCADE,
  n          integer NOT NULL,
  first_row  integer NOT NULL,
  last_row   integer NOT NULL,
  done       boolean NOT NULL DEFAULT false,
  PRIMARY KEY (import_id, n)
);
CREATE INDEX import_chunks_todo_idx ON import_chunks (import_id, n) WHERE NOT done;
