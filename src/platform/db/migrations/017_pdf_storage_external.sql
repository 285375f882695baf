-- Frozen PDFs are compressed already (their streams are deflated): PostgreSQL's default storage
-- for bytea ('extended') tried pglz on each one at insert, failed, and stored it as is, for
-- 0.2-0.4 ms of the database's CPU per PDF (measured: docs/benchmarks.md). 'external' stores it
-- out of line without trying. Rows written before keep their form; reading is the same.
ALTER TABLE certificate_pdfs ALTER COLUMN pdf SET STORAGE EXTERNAL;
