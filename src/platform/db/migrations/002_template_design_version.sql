-- A template's updated_at moves whenever its design changes, however it is changed (CLI or SQL):
-- the PDF workers cache compiled templates by (id, updated_at), so this keeps that key honest
-- without hashing the design on every issue.
CREATE FUNCTION templates_touch_on_design_change() RETURNS trigger AS $$
BEGIN
  IF NEW.design IS DISTINCT FROM OLD.design AND NEW.updated_at IS NOT DISTINCT FROM OLD.updated_at THEN
    NEW.updated_at := clock_timestamp();
  END IF;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER templates_design_version
  BEFORE UPDATE ON templates
  FOR EACH ROW EXECUTE FUNCTION templates_touch_on_design_change();
