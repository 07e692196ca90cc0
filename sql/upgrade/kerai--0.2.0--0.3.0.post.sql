-- Backfill of the 0.2.0 -> 0.3.0 upgrade, run last: monthly partitions made at 0.2.0 are kept
-- in dumps from now on, like the ones kerai.partition_by_month makes at 0.3.0.
DO $$
DECLARE
    part regclass;
BEGIN
    FOR part IN SELECT i.inhrelid::regclass FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhparent
                 WHERE p.relnamespace = 'kerai'::regnamespace AND p.relkind = 'p' LOOP
        PERFORM kerai._keep_in_dumps(part);
    END LOOP;
END
$$;

-- A DOI and an arXiv id name one reference: kerai.reference_keys keeps that from 0.3.0, in
-- place of unique indexes on kerai.reference_state (docs/scale-out.md).
INSERT INTO kerai.reference_keys (key, node_id, created_at)
SELECT 'doi:' || rs.doi, rs.node_id, rs.created_at FROM kerai.reference_state rs WHERE rs.doi IS NOT NULL
UNION ALL
SELECT 'arxiv:' || rs.arxiv, rs.node_id, rs.created_at FROM kerai.reference_state rs WHERE rs.arxiv IS NOT NULL
ON CONFLICT (key) DO NOTHING;
