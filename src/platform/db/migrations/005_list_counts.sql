-- Exact list totals without counting rows: one counter per (account, list), e.g.
-- ('certificates:Issued', 'templates:active'), moved by triggers in the very transaction of each
-- write (an issue batch, a revocation, an archive), so a list's `total` is one indexed row read
-- however large the account grows. Statement-level on INSERT (a 500-certificate batch is one
-- upsert per status); row-level on UPDATE OF status, so the counter increments of downloads and
-- verifications never fire it.
CREATE TABLE list_counts (
  account_id  uuid NOT NULL REFERENCES accounts(id),
  list        text NOT NULL,
  n           bigint NOT NULL,
  PRIMARY KEY (account_id, list)
);

-- TG_ARGV[0] names the list ('certificates' or 'templates'); rows are counted by their status.
-- (No CHECK (n >= 0) on n: PostgreSQL checks the proposed row of an upsert before it finds the
-- conflict, so a decrement written as an upsert would always fail it.)
CREATE FUNCTION list_counts_on_insert() RETURNS trigger AS $$
BEGIN
  INSERT INTO list_counts AS c (account_id, list, n)
  SELECT account_id, TG_ARGV[0] || ':' || status, count(*) FROM new_rows
   GROUP BY account_id, status ORDER BY 1, 2
  ON CONFLICT (account_id, list) DO UPDATE SET n = c.n + EXCLUDED.n;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

-- Lock order is (account, list) ascending in every writer, so two revocations never deadlock.
CREATE FUNCTION list_counts_on_change() RETURNS trigger AS $$
BEGIN
  INSERT INTO list_counts AS c (account_id, list, n)
  SELECT a, l, d FROM (
    SELECT OLD.account_id AS a, TG_ARGV[0] || ':' || OLD.status AS l, -1 AS d WHERE TG_OP <> 'INSERT'
    UNION ALL
    SELECT NEW.account_id, TG_ARGV[0] || ':' || NEW.status, 1 WHERE TG_OP = 'UPDATE'
  ) x ORDER BY a, l
  ON CONFLICT (account_id, list) DO UPDATE SET n = c.n + EXCLUDED.n;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER certificates_count_insert AFTER INSERT ON certificates
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION list_counts_on_insert('certificates');
CREATE TRIGGER certificates_count_change AFTER UPDATE OF status, account_id ON certificates
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.account_id IS DISTINCT FROM NEW.account_id)
  EXECUTE FUNCTION list_counts_on_change('certificates');
CREATE TRIGGER certificates_count_delete AFTER DELETE ON certificates
  FOR EACH ROW EXECUTE FUNCTION list_counts_on_change('certificates');

CREATE TRIGGER templates_count_insert AFTER INSERT ON templates
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION list_counts_on_insert('templates');
CREATE TRIGGER templates_count_change AFTER UPDATE OF status, account_id ON templates
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.account_id IS DISTINCT FROM NEW.account_id)
  EXECUTE FUNCTION list_counts_on_change('templates');
CREATE TRIGGER templates_count_delete AFTER DELETE ON templates
  FOR EACH ROW EXECUTE FUNCTION list_counts_on_change('templates');

INSERT INTO list_counts (account_id, list, n)
SELECT account_id, 'certificates:' || status, count(*) FROM certificates GROUP BY 1, 2
UNION ALL
SELECT account_id, 'templates:' || status, count(*) FROM templates GROUP BY 1, 2;

-- Active templates newest first, the only order the templates list uses.
CREATE INDEX templates_account_active_idx ON templates (account_id, created_at DESC, id DESC) WHERE status = 'active';
