-- Hand-written part of the 0.1.0 -> 0.2.0 upgrade, run before the generated part: changes to
-- tables and rows 0.1.0 already had (scripts/upgrade_script.py cannot guess those).

-- covers: INSERT INTO kerai.reference_moves VALUES
INSERT INTO kerai.reference_moves VALUES ('found', 'not_found'), ('fetching', 'not_found') ON CONFLICT DO NOTHING;
