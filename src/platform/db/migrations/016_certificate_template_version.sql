-- Which version of its template's design a certificate was issued from (migration 012 numbers
-- them): the dashboard names it beside the template and links the template's history. NULL for
-- certificates issued before this was recorded.
ALTER TABLE certificates ADD COLUMN template_version integer CHECK (template_version >= 1);
