-- A CSV row's own expiry (issue 30, decisions 24: the `expiresAt` column), kept with the row until
-- its chunk is issued: as the issue takes it (a date made the end of that day, UTC), or as written
-- when it is neither a date nor a date-time, so that the issue refuses that row with its reason.
-- NULL: the template's validity.
ALTER TABLE import_rows ADD COLUMN expires_at text;
