-- The design studio (issue 18): every saved design is a version, and a template may be a draft.
--
-- template_versions keeps each design ever saved, numbered 1, 2, 3 ... per template, never changed
-- or deleted: any version can be previewed or restored (a restore saves a copy as the newest).
-- templates.design stays what issuing renders (the published design; for a draft, the newest);
-- templates.version names the version it is, templates.latest_version the newest saved one, which
-- may be ahead of it (saved, not published yet). Certificates keep their frozen PDFs whatever
-- happens to the versions.
--
-- A draft ('draft') is invisible to the API like an archived template: the API reads only 'active'
-- rows (and list_counts 'templates:active', which the triggers of migration 005 keep by status).
ALTER TABLE templates DROP CONSTRAINT templates_status_check;
ALTER TABLE templates ADD CONSTRAINT templates_status_check CHECK (status IN ('draft', 'active', 'archived'));
ALTER TABLE templates ADD COLUMN version integer NOT NULL DEFAULT 1;
ALTER TABLE templates ADD COLUMN latest_version integer NOT NULL DEFAULT 1;
ALTER TABLE templates ADD CONSTRAINT templates_version_check CHECK (version >= 1 AND version <= latest_version);

CREATE TABLE template_versions (
  template_id  uuid NOT NULL REFERENCES templates(id),
  version      integer NOT NULL CHECK (version >= 1),
  account_id   uuid NOT NULL REFERENCES accounts(id),
  design       jsonb NOT NULL,
  -- Who or what saved it, in our own words: 'created', 'saved', 'restored from version 3', ...
  note         text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (template_id, version)
);

-- Every existing template's design is its version 1.
INSERT INTO template_versions (template_id, version, account_id, design, note, created_at)
SELECT id, 1, account_id, design, 'created', created_at FROM templates;
