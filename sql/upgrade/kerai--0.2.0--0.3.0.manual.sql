-- Hand-written part of the 0.2.0 -> 0.3.0 upgrade, run before the generated part: changes to
-- tables and rows 0.2.0 already had (scripts/upgrade_script.py cannot guess those).
-- Besides this, 0.3.0 adds functions, triggers, roles, grants and the registration of every
-- user-data table for pg_dump (sql/dump.sql), all of which the generated part copies.

-- 0.2.0 had: ALTER TABLE kerai.pages ADD CONSTRAINT pages_current_version_fk ...
-- The key from pages to their current version made a cycle with page_versions.page_id that no
-- restore order loads; a delete trigger (site.sql) replaces it. (A table partitioned at 0.2.0
-- already had it replaced by a row of kerai.partition_references.)
ALTER TABLE kerai.pages DROP CONSTRAINT IF EXISTS pages_current_version_fk;
