-- Verification from a cache (issue 34): every instance keeps what cannot change about a certificate
-- (the frozen certificate, its credential, the issuer it was issued under) in memory, and learns of
-- what can change from a NOTIFY on the channel certsvc_verify, sent by these triggers in the
-- transaction of the change, so that it is delivered when that transaction commits and never for
-- one that rolls back. Payloads: 'c:<unique code>' (status, revocation, supersession of one
-- certificate), 'a:<account id>' (its current name and the page settings the verification shows),
-- 't:<template id>' (the template's name). src/modules/verify/verify-cache.ts listens.

CREATE FUNCTION verify_notify_certificate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('certsvc_verify', 'c:' || NEW.unique_code);
  RETURN NULL;
END $$;
CREATE TRIGGER certificates_verify_notify AFTER UPDATE OF status, revoked_at, revocation_reason, superseded_by, expires_at
  ON certificates FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.revoked_at IS DISTINCT FROM NEW.revoked_at
        OR OLD.revocation_reason IS DISTINCT FROM NEW.revocation_reason
        OR OLD.superseded_by IS DISTINCT FROM NEW.superseded_by OR OLD.expires_at IS DISTINCT FROM NEW.expires_at)
  EXECUTE FUNCTION verify_notify_certificate();

CREATE FUNCTION verify_notify_account() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('certsvc_verify', 'a:' || NEW.id::text);
  RETURN NULL;
END $$;
CREATE TRIGGER accounts_verify_notify AFTER UPDATE OF name, public_download, linkedin_organization_id, default_language
  ON accounts FOR EACH ROW
  WHEN (OLD.name IS DISTINCT FROM NEW.name OR OLD.public_download IS DISTINCT FROM NEW.public_download
        OR OLD.linkedin_organization_id IS DISTINCT FROM NEW.linkedin_organization_id
        OR OLD.default_language IS DISTINCT FROM NEW.default_language)
  EXECUTE FUNCTION verify_notify_account();

CREATE FUNCTION verify_notify_template() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('certsvc_verify', 't:' || NEW.id::text);
  RETURN NULL;
END $$;
CREATE TRIGGER templates_verify_notify AFTER UPDATE OF name ON templates FOR EACH ROW
  WHEN (OLD.name IS DISTINCT FROM NEW.name)
  EXECUTE FUNCTION verify_notify_template();
