-- Account settings of a certificate's life after issue (issue 19, decisions section 19).
-- The account's LinkedIn organisation (its numeric company page id): "Add to LinkedIn profile"
-- links then name the organisation by id, so the certification shows its logo; NULL: by name.
ALTER TABLE accounts ADD COLUMN linkedin_organization_id text
  CHECK (linkedin_organization_id ~ '^[0-9]{1,19}$');

-- Whether the public verification page offers the certificate's PDF for download (on by default;
-- the owner's API and dashboard downloads are not affected).
ALTER TABLE accounts ADD COLUMN public_download boolean NOT NULL DEFAULT true;

-- The design's locale (docs/design-format.md, Language), kept beside it: the email worker reads
-- the language of each message without detoasting the whole design (images are inlined in it).
ALTER TABLE templates ADD COLUMN locale text GENERATED ALWAYS AS (design->>'locale') STORED;
