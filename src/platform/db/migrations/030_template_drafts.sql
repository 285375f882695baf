-- The studio's unsaved edits (issue 30, item 8): while a user has edits not yet saved, the editor
-- stores the design being edited here every 30 s, one draft per template and user, replaced each
-- time. A draft is not a version: nothing issues from it, it writes no audit event, and Save or
-- Publish deletes it. The editor offers to restore it when it is newer than the newest version.
CREATE TABLE template_drafts (
  template_id  uuid NOT NULL REFERENCES templates(id) ON DELETE CASCADE,
  user_id      uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  account_id   uuid NOT NULL REFERENCES accounts(id),
  design       jsonb NOT NULL,
  saved_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (template_id, user_id)
);
CREATE INDEX template_drafts_user_idx ON template_drafts (user_id);
