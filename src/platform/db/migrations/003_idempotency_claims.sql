-- An idempotency key is claimed (a row without an answer, leased until locked_until) before its
-- request runs, and the answer is stored when it ends. A second request with the same key meanwhile
-- sees the claim and gets 409, without any lock or transaction held while the first one renders PDFs.
-- A claim left by a crashed process is taken over once its lease has run out.
ALTER TABLE idempotency_keys ADD COLUMN locked_until timestamptz;
