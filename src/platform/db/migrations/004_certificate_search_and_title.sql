-- Search on GET /certificates (docs/api.md, Certificates: search) and the frozen title of what was earned.
--
-- search_name is the recipient's name folded for case- and accent-insensitive search; the service
-- folds in code (certificates/search-fold.ts) at issue and folds the query the same way. Rows issued
-- before this migration are folded here by the closest SQL equivalent (NFD, combining accents
-- removed, lower case).
CREATE EXTENSION IF NOT EXISTS pg_trgm;

ALTER TABLE certificates ADD COLUMN search_name text;
UPDATE certificates
   SET search_name = lower(regexp_replace(normalize(recipient_name, NFKD), '[\u0300-\u036f]', '', 'g'));
ALTER TABLE certificates ALTER COLUMN search_name SET NOT NULL;

-- "Contains" on the folded name: a trigram index (LIKE '%q%').
CREATE INDEX certificates_search_name_idx ON certificates USING gin (search_name gin_trgm_ops);
-- Exact, case-insensitive email, newest first within the account.
CREATE INDEX certificates_account_email_idx
  ON certificates (account_id, lower(recipient_email), created_at DESC, id DESC);
CREATE INDEX certificates_account_template_idx
  ON certificates (account_id, template_id, created_at DESC, id DESC);

-- What was earned, filled from the design's title at issue and frozen with the PDF; certificates
-- issued before titles existed take their template's name, as they showed until now.
ALTER TABLE certificates ADD COLUMN title text;
UPDATE certificates c SET title = t.name FROM templates t WHERE t.id = c.template_id;
ALTER TABLE certificates ALTER COLUMN title SET NOT NULL;
