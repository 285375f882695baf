-- A template's badge image (issue 31, decisions 22): a PNG or an SVG uploaded in the studio, the
-- image that "Download badge" and the claim page bake the certificate's credential into (Open
-- Badges 3.0 baking). One per template, beside its versions: changing the badge is not a new
-- version of the design. An SVG is stored as rebuilt by the safe-SVG check (platform/svg), never as
-- it was uploaded; a PNG as uploaded, after the image checks. Without a row, the badge is drawn
-- from the design (a seal with the template's name).
CREATE TABLE template_badges (
  template_id  uuid PRIMARY KEY REFERENCES templates(id) ON DELETE CASCADE,
  account_id   uuid NOT NULL REFERENCES accounts(id),
  media_type   text NOT NULL CHECK (media_type IN ('image/png', 'image/svg+xml')),
  body         bytea NOT NULL,
  updated_at   timestamptz NOT NULL
);
