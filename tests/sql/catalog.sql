-- A description of everything the kerai extension owns, one sorted line per fact: used to check
-- that `ALTER EXTENSION kerai UPDATE` from an older version gives exactly what a fresh install
-- of the new version gives. Column order is ignored (ALTER TABLE ADD COLUMN appends).
WITH members AS (
    SELECT d.classid, d.objid
      FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
     WHERE e.extname = 'kerai' AND d.deptype = 'e'
), rels AS (
    SELECT c.oid, c.relname, c.relkind FROM pg_class c
     WHERE c.oid IN (SELECT objid FROM members WHERE classid = 'pg_class'::regclass)
)
SELECT line FROM (
    SELECT format('relation %s %s', r.relname, r.relkind) AS line FROM rels r
    UNION ALL
    SELECT format('column %s.%s %s%s%s%s', r.relname, a.attname, format_type(a.atttypid, a.atttypmod),
                  CASE WHEN a.attnotnull THEN ' not null' ELSE '' END,
                  coalesce(' default ' || pg_get_expr(ad.adbin, ad.adrelid), ''),
                  CASE WHEN a.attgenerated <> '' THEN ' generated' ELSE '' END)
      FROM rels r JOIN pg_attribute a ON a.attrelid = r.oid AND a.attnum > 0 AND NOT a.attisdropped
      LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
     WHERE r.relkind IN ('r', 'p', 'v')
    UNION ALL
    SELECT format('constraint %s.%s %s', r.relname, c.conname, pg_get_constraintdef(c.oid))
      FROM rels r JOIN pg_constraint c ON c.conrelid = r.oid
    UNION ALL
    SELECT format('index %s', pg_get_indexdef(i.indexrelid))
      FROM rels r JOIN pg_index i ON i.indrelid = r.oid
    UNION ALL
    SELECT format('trigger %s', pg_get_triggerdef(t.oid))
      FROM rels r JOIN pg_trigger t ON t.tgrelid = r.oid AND NOT t.tgisinternal
    UNION ALL
    SELECT format('view %s %s', r.relname, md5(pg_get_viewdef(r.oid)))
      FROM rels r WHERE r.relkind = 'v'
    UNION ALL
    SELECT format('comment %s %s', r.relname, md5(obj_description(r.oid, 'pg_class')))
      FROM rels r WHERE obj_description(r.oid, 'pg_class') IS NOT NULL
    UNION ALL
    SELECT format('function %s returns %s %s %s %s %s', p.oid::regprocedure, pg_get_function_result(p.oid),
                  p.provolatile, p.proparallel, p.proisstrict, md5(regexp_replace(p.prosrc, '\s+', ' ', 'g')))
      FROM pg_proc p WHERE p.oid IN (SELECT objid FROM members WHERE classid = 'pg_proc'::regclass)
    UNION ALL
    SELECT format('function-comment %s %s', p.oid::regprocedure, md5(obj_description(p.oid, 'pg_proc')))
      FROM pg_proc p WHERE p.oid IN (SELECT objid FROM members WHERE classid = 'pg_proc'::regclass)
       AND obj_description(p.oid, 'pg_proc') IS NOT NULL
    UNION ALL
    SELECT format('function-args %s %s', p.oid::regprocedure, pg_get_function_arguments(p.oid))
      FROM pg_proc p WHERE p.oid IN (SELECT objid FROM members WHERE classid = 'pg_proc'::regclass)
    UNION ALL
    SELECT format('type %s %s', t.typname, t.typtype)
      FROM pg_type t WHERE t.oid IN (SELECT objid FROM members WHERE classid = 'pg_type'::regclass)
    UNION ALL
    -- What pg_dump keeps (pg_extension_config_dump), with its filter.
    SELECT format('dumped %s %s', c.oid::regclass, coalesce(e.extcondition[i], ''))
      FROM pg_extension e, generate_subscripts(e.extconfig, 1) i, pg_class c
     WHERE e.extname = 'kerai' AND c.oid = e.extconfig[i]
    UNION ALL
    SELECT format('acl %s %s', r.relname, array_to_string(array(SELECT unnest(r2.relacl)::text ORDER BY 1), ','))
      FROM rels r JOIN pg_class r2 ON r2.oid = r.oid WHERE r2.relacl IS NOT NULL
    UNION ALL
    SELECT format('acl %s %s', p.oid::regprocedure, array_to_string(array(SELECT unnest(p.proacl)::text ORDER BY 1), ','))
      FROM pg_proc p WHERE p.oid IN (SELECT objid FROM members WHERE classid = 'pg_proc'::regclass) AND p.proacl IS NOT NULL
    UNION ALL
    SELECT format('function-config %s %s %s', p.oid::regprocedure, p.prosecdef, p.proconfig)
      FROM pg_proc p WHERE p.oid IN (SELECT objid FROM members WHERE classid = 'pg_proc'::regclass)
    UNION ALL
    SELECT format('policy %s.%s %s %s %s %s', r.relname, pol.polname, pol.polcmd, pol.polroles::regrole[],
                  pg_get_expr(pol.polqual, pol.polrelid), pg_get_expr(pol.polwithcheck, pol.polrelid))
      FROM rels r JOIN pg_policy pol ON pol.polrelid = r.oid
    UNION ALL
    SELECT format('options %s %s', r.relname, r2.reloptions)
      FROM rels r JOIN pg_class r2 ON r2.oid = r.oid WHERE r2.reloptions IS NOT NULL
    UNION ALL
    SELECT format('row-security %s %s %s', r.relname, r2.relrowsecurity, r2.relforcerowsecurity)
      FROM rels r JOIN pg_class r2 ON r2.oid = r.oid WHERE r.relkind IN ('r', 'p')
) x
ORDER BY line;
