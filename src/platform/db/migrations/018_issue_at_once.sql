-- Undoes the statement that writes a single issue at once (certificates/issue-at-once.repository.ts)
-- when it took the quota but found the status list full meanwhile, or the other way round: an error
-- ends the statement, and with it everything it wrote. The caller then issues the usual way.
CREATE FUNCTION certsvc_issue_at_once_no_room() RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  RAISE EXCEPTION 'a single issue found no room at once' USING ERRCODE = 'CS001';
END
$$;
