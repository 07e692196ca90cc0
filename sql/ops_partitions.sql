-- Growth: monthly range partitioning of the tables that grow with time (seed 001's advice),
-- turned on per table when it gets big, and large raw HTML out of line (retrieval.sql).
--
--   table          partitioned on   turn it on above (seed 001)
--   page_versions  scraped_at       10 million rows
--   chunks         created_at       50 million rows
--   ai_requests    created_at        1 million rows
--
-- kerai.partitioning_status says where each table stands; kerai.partition_by_month(table)
-- converts it in place (rows kept); kerai.add_month_partitions() keeps months ready ahead
-- (schedule it monthly with pg_cron).

CREATE FUNCTION kerai._partitionable() RETURNS TABLE (table_name text, time_column text, threshold bigint)
LANGUAGE sql IMMUTABLE AS $$
    VALUES ('page_versions', 'scraped_at', 10000000::bigint),
           ('chunks', 'created_at', 50000000::bigint),
           ('ai_requests', 'created_at', 1000000::bigint)
$$;

CREATE VIEW kerai.partitioning_status AS
SELECT p.table_name, p.time_column, p.threshold,
       greatest(c.reltuples, 0)::bigint AS estimated_rows,
       c.relkind = 'p' AS partitioned,
       (SELECT count(*) FROM pg_inherits i WHERE i.inhparent = c.oid) AS partitions,
       c.relkind <> 'p' AND c.reltuples > p.threshold AS advised
  FROM kerai._partitionable() p
  JOIN pg_class c ON c.oid = ('kerai.' || p.table_name)::regclass;
COMMENT ON VIEW kerai.partitioning_status IS
    'Whether each growing table is partitioned by month, its estimated rows, and whether seed 001''s threshold '
    'advises partitioning it now (SELECT kerai.partition_by_month(table_name)).';

-- Foreign keys that pointed at a table before it was partitioned: a partitioned table's keys
-- include the month, so those references are kept by a delete trigger instead.
CREATE TABLE kerai.partition_references (
    parent_table  text NOT NULL,
    child_table   text NOT NULL,
    child_column  text NOT NULL,
    on_delete     text NOT NULL CHECK (on_delete IN ('cascade', 'set null')),
    PRIMARY KEY (parent_table, child_table, child_column)
);
COMMENT ON TABLE kerai.partition_references IS
    'Foreign keys that pointed at a table before kerai.partition_by_month partitioned it: parent_table, '
    'child_table, child_column, on_delete (cascade or set null). A delete trigger on the partitioned table '
    'keeps them.';

-- Keep a table made at run time (a monthly partition) in dumps, as pg_extension_config_dump
-- does for the tables of the install script (Postgres lets that function run only there).
-- It writes kerai's own row of pg_extension, so only the owner's functions that partition
-- (SECURITY DEFINER, for kerai_admin) call it.
CREATE FUNCTION kerai._keep_in_dumps(rel regclass) RETURNS void
LANGUAGE sql SET search_path = pg_catalog, pg_temp AS $$
    UPDATE pg_catalog.pg_extension
       SET extconfig = array_append(extconfig, rel::oid),
           extcondition = array_append(extcondition, ''::text)
     WHERE extname = 'kerai' AND NOT (rel::oid = ANY (coalesce(extconfig, '{}'::oid[])));
$$;

-- One month's partition of `tbl` (the month holding `month_start`), unless it exists.
CREATE FUNCTION kerai._month_partition(tbl text, month_start date) RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    m date := date_trunc('month', month_start)::date;
    part text := format('%s_y%sm%s', tbl, to_char(m, 'YYYY'), to_char(m, 'MM'));
BEGIN
    IF to_regclass(format('kerai.%I', part)) IS NULL THEN
        EXECUTE format('CREATE TABLE kerai.%I PARTITION OF kerai.%I FOR VALUES FROM (%L) TO (%L)',
                       part, tbl, m, (m + interval '1 month')::date);
        EXECUTE format('ALTER EXTENSION kerai ADD TABLE kerai.%I', part);
        PERFORM kerai._keep_in_dumps(format('kerai.%I', part)::regclass);
    END IF;
    RETURN part;
END
$$;

-- Months from now to `months_ahead` ahead, for every partitioned table. Returns how many
-- partitions were made. Rows past the last month land in the default partition.
CREATE FUNCTION kerai.add_month_partitions(months_ahead integer DEFAULT 3) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    allowed boolean := kerai._require('kerai_admin', 'kerai.add_month_partitions');
    p record;
    i integer;
    n integer := 0;
    part text;
BEGIN
    IF months_ahead IS NULL OR months_ahead < 0 OR months_ahead > 120 THEN
        RAISE EXCEPTION 'kerai.add_month_partitions: months_ahead must be 0 to 120, not %', months_ahead
            USING ERRCODE = '22023';
    END IF;
    -- On Citus the new partitions of a distributed table are made one shard at a time (in
    -- parallel, the partitions after the first deadlock on their own shard locks).
    IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
        PERFORM set_config('citus.multi_shard_modify_mode', 'sequential', true);
    END IF;
    FOR p IN SELECT s.table_name FROM kerai.partitioning_status s WHERE s.partitioned LOOP
        FOR i IN 0..months_ahead LOOP
            part := format('%s_y%s', p.table_name, to_char(now() + make_interval(months => i), 'YYYY"m"MM'));
            IF to_regclass(format('kerai.%I', part)) IS NULL THEN
                PERFORM kerai._month_partition(p.table_name, (now() + make_interval(months => i))::date);
                n := n + 1;
            END IF;
        END LOOP;
    END LOOP;
    RETURN n;
END
$$;

-- The delete trigger that stands in for foreign keys into a partitioned table. Its arguments
-- are the parent's name, then four for each reference: the child table, its column naming the
-- parent's id, cascade or set null, and the group column parent and child share ('' for
-- none): a parent whose key starts with its group (chunks: the document, docs/scale-out.md)
-- is referenced by (document_id, id), so its children are looked up within the group (a chunk
-- that moved to a page's newer document keeps its id, src/chunk_moves.rs), which on Citus is
-- one shard next to the parent's. The references travel in the arguments because a shard's
-- trigger runs on a worker, whose copy of kerai.partition_references is empty; a trigger made
-- before 0.3.0 has only the parent's name and reads them from that table.
CREATE FUNCTION kerai._partition_references_on_delete() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    r record;
    old_row jsonb := to_jsonb(OLD);
    first_key text;
BEGIN
    IF TG_NARGS = 1 THEN
        first_key := (SELECT a.attname FROM pg_index i JOIN pg_attribute a
                          ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
                       WHERE i.indrelid = TG_RELID AND i.indisprimary);
    END IF;
    FOR r IN SELECT TG_ARGV[i] AS child_table, TG_ARGV[i + 1] AS child_column, TG_ARGV[i + 2] AS on_delete,
                    nullif(TG_ARGV[i + 3], '') AS group_column
               FROM generate_series(1, TG_NARGS - 4, 4) AS i
             UNION ALL
             SELECT pr.child_table, pr.child_column, pr.on_delete,
                    CASE WHEN first_key = 'document_id' THEN first_key END
               FROM kerai.partition_references pr
              WHERE TG_NARGS = 1 AND pr.parent_table = TG_ARGV[0] LOOP
        IF r.on_delete = 'cascade' AND r.group_column IS NOT NULL THEN
            EXECUTE format('DELETE FROM kerai.%I WHERE %I = $2::uuid AND %I = $1', r.child_table, r.group_column,
                           r.child_column)
                USING OLD.id, old_row->>r.group_column;
        ELSIF r.on_delete = 'cascade' THEN
            EXECUTE format('DELETE FROM kerai.%I WHERE %I = $1', r.child_table, r.child_column) USING OLD.id;
        ELSIF r.group_column IS NOT NULL THEN
            EXECUTE format('UPDATE kerai.%I SET %I = NULL WHERE %I = $2::uuid AND %I = $1', r.child_table,
                           r.child_column, r.group_column, r.child_column)
                USING OLD.id, old_row->>r.group_column;
        ELSE
            EXECUTE format('UPDATE kerai.%I SET %I = NULL WHERE %I = $1', r.child_table, r.child_column, r.child_column)
                USING OLD.id;
        END IF;
    END LOOP;
    RETURN OLD;
END
$$;

-- On a Citus worker: `name` (a TABLE, VIEW or FUNCTION of kerai's) leaves the extension, so that
-- Citus drops it there when the coordinator does (kerai._partition_by_month). Returns whether
-- it was a member.
CREATE FUNCTION kerai._leave_extension(kind text, name text) RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    obj oid := CASE kind WHEN 'FUNCTION' THEN to_regprocedure(name)::oid ELSE to_regclass(name)::oid END;
    cls regclass := CASE kind WHEN 'FUNCTION' THEN 'pg_proc' ELSE 'pg_class' END;
BEGIN
    IF kind NOT IN ('TABLE', 'VIEW', 'FUNCTION') THEN
        RAISE EXCEPTION 'kerai._leave_extension: kind must be TABLE, VIEW or FUNCTION, not %', kind
            USING ERRCODE = '22023';
    END IF;
    IF obj IS NULL OR NOT EXISTS (SELECT 1 FROM pg_depend d
                                   WHERE d.classid = cls AND d.objid = obj AND d.deptype = 'e') THEN
        RETURN false;
    END IF;
    EXECUTE format('ALTER EXTENSION kerai DROP %s %s', kind, name);
    RETURN true;
END
$$;

-- Convert kerai.<table_name> (page_versions, chunks or ai_requests) into a table partitioned
-- by month on its time column, in one transaction: the rows are copied into monthly
-- partitions (plus `months_ahead` months, and a default partition), indexes, triggers, views
-- and functions that depend on the table are rebuilt, and foreign keys that pointed at it
-- become a delete trigger (a partitioned table's primary key includes the month). Takes an
-- ACCESS EXCLUSIVE lock for as long as the copy lasts. Returns what it did.
-- The work runs as the extension's owner (it rebuilds extension tables); kerai.partition_by_month
-- below is the entry point, for kerai_admin.
CREATE FUNCTION kerai._partition_by_month(table_name text, months_ahead integer) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_variable
DECLARE
    col text;
    rel regclass;
    old_name text := table_name || '_unpartitioned';
    idx text[];
    trg text[];
    fks_out text[];
    views text[];
    policies text[];
    policy_drops text[];
    rls boolean;
    view_names text[];
    funcs text[];
    func_sigs text[];
    stats text[];
    comments text[];
    cols text;
    key_cols text;
    moved bigint;
    first_month date;
    m date;
    d text;
    r record;
    refs integer := 0;
    dist_col text;
    group_col text;
    ref_args text;
BEGIN
    SELECT p.time_column INTO col FROM kerai._partitionable() p WHERE p.table_name = _partition_by_month.table_name;
    IF col IS NULL THEN
        RAISE EXCEPTION 'kerai.partition_by_month: % cannot be partitioned', coalesce(table_name, 'NULL')
            USING ERRCODE = '22023', HINT = 'the tables are page_versions, chunks and ai_requests';
    END IF;
    rel := format('kerai.%I', table_name)::regclass;
    IF (SELECT relkind FROM pg_class WHERE oid = rel) = 'p' THEN
        RETURN jsonb_build_object('table', table_name, 'already_partitioned', true,
                                  'added_partitions', kerai.add_month_partitions(months_ahead));
    END IF;
    -- On a Citus coordinator a distributed table is made again distributed on the same column, in
    -- the same co-location group, before its partitions (which Citus then distributes too); the
    -- rows move shard to shard. Citus runs such a transaction's statements one shard at a time.
    IF to_regclass('pg_catalog.pg_dist_partition') IS NOT NULL THEN
        EXECUTE 'SELECT column_to_column_name(logicalrelid, partkey) FROM pg_catalog.pg_dist_partition
                  WHERE logicalrelid = $1 AND partmethod = ''h''' INTO dist_col USING rel;
    END IF;
    IF dist_col IS NOT NULL THEN
        -- A worker keeps a table that belongs to an extension when Citus drops it, and
        -- CREATE EXTENSION made the table, its views and functions on the workers too: they
        -- leave the extension there first (committed on connections of their own, before this
        -- transaction locks anything), so that the rebuild below replaces them on the workers
        -- as it does here.
        FOR r IN SELECT 'VIEW' AS kind, rw.ev_class::regclass::text AS name
                   FROM pg_depend dp JOIN pg_rewrite rw ON rw.oid = dp.objid
                  WHERE dp.classid = 'pg_rewrite'::regclass AND dp.refobjid = rel
                 UNION
                 SELECT 'FUNCTION', dp.objid::regprocedure::text
                   FROM pg_depend dp
                  WHERE dp.classid = 'pg_proc'::regclass AND dp.refobjid = (SELECT reltype FROM pg_class WHERE oid = rel)
                 UNION ALL
                 SELECT 'TABLE', rel::text LOOP
            SELECT string_agg(format('%s:%s: %s', w.nodename, w.nodeport, w.result), '; ') INTO d
              FROM run_command_on_workers(format('SELECT kerai._leave_extension(%L, %L)', r.kind, r.name)) w
             WHERE NOT w.success;
            IF d IS NOT NULL THEN
                RAISE EXCEPTION 'kerai.partition_by_month: a worker refused to prepare %: %', r.name, d
                    USING ERRCODE = '55000',
                          HINT = 'check that every worker is up and has kerai at the coordinator''s version, then call kerai.partition_by_month again';
            END IF;
        END LOOP;
        PERFORM set_config('citus.multi_shard_modify_mode', 'sequential', true);
        PERFORM set_config('citus.enable_unsafe_triggers', 'on', true);
    END IF;
    EXECUTE format('LOCK TABLE kerai.%I IN ACCESS EXCLUSIVE MODE', table_name);

    -- What to rebuild: the primary key (with the month added), indexes, triggers, foreign keys
    -- from the table.
    SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY k.n) INTO key_cols
      FROM pg_constraint c CROSS JOIN LATERAL unnest(c.conkey) WITH ORDINALITY AS k(attnum, n)
      JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum
     WHERE c.conrelid = rel AND c.contype = 'p';
    SELECT array_agg(pg_get_indexdef(i.indexrelid)) INTO idx
      FROM pg_index i WHERE i.indrelid = rel AND NOT i.indisprimary;
    SELECT array_agg(pg_get_triggerdef(t.oid)) INTO trg
      FROM pg_trigger t WHERE t.tgrelid = rel AND NOT t.tgisinternal;
    SELECT array_agg(format('ALTER TABLE kerai.%I ADD CONSTRAINT %I %s', table_name, c.conname, pg_get_constraintdef(c.oid)))
      INTO fks_out FROM pg_constraint c WHERE c.conrelid = rel AND c.contype = 'f';
    SELECT array_agg(format('ALTER TABLE kerai.%I ALTER COLUMN %I SET STATISTICS %s', table_name, a.attname, a.attstattarget))
      INTO stats FROM pg_attribute a WHERE a.attrelid = rel AND a.attnum > 0 AND NOT a.attisdropped AND a.attstattarget > 0;
    -- Views on the table, and functions taking its row type.
    SELECT array_agg(format('CREATE VIEW %s AS %s', v.oid::regclass, pg_get_viewdef(v.oid)) ORDER BY v.oid),
           array_agg(v.oid::regclass::text ORDER BY v.oid)
      INTO views, view_names
      FROM pg_class v
     WHERE v.relkind = 'v' AND v.oid IN (
           SELECT rw.ev_class FROM pg_depend dp JOIN pg_rewrite rw ON rw.oid = dp.objid
            WHERE dp.classid = 'pg_rewrite'::regclass AND dp.refobjid = rel);
    SELECT array_agg(pg_get_functiondef(f.oid)), array_agg(f.oid::regprocedure::text)
      INTO funcs, func_sigs
      FROM pg_proc f WHERE f.oid IN (
           SELECT dp.objid FROM pg_depend dp
            WHERE dp.classid = 'pg_proc'::regclass AND dp.refobjid = (SELECT reltype FROM pg_class WHERE oid = rel));
    -- Their descriptions (COMMENT ON; the table's own, as LIKE copies only the columns').
    SELECT array_agg(c) INTO comments FROM (
        SELECT format('COMMENT ON TABLE kerai.%I IS %L', table_name, obj_description(rel, 'pg_class')) AS c
         WHERE obj_description(rel, 'pg_class') IS NOT NULL
        UNION ALL
        SELECT format('COMMENT ON VIEW %s IS %L', v, obj_description(v::regclass, 'pg_class'))
          FROM unnest(view_names) AS v WHERE obj_description(v::regclass, 'pg_class') IS NOT NULL
        UNION ALL
        SELECT format('COMMENT ON FUNCTION %s IS %L', f, obj_description(f::regprocedure, 'pg_proc'))
          FROM unnest(func_sigs) AS f WHERE obj_description(f::regprocedure, 'pg_proc') IS NOT NULL) AS described;
    -- Row-level security: the table's own policies, and policies of other tables that read
    -- it (dropped now, made again on the new table).
    SELECT c.relrowsecurity INTO rls FROM pg_class c WHERE c.oid = rel;
    SELECT array_agg(format('CREATE POLICY %I ON %I.%I AS %s FOR %s TO %s%s%s', p.policyname, p.schemaname, p.tablename,
                            p.permissive, p.cmd,
                            array_to_string(ARRAY(SELECT CASE WHEN pr.role = 'public' THEN 'public' ELSE quote_ident(pr.role) END
                                                    FROM unnest(p.roles) AS pr(role)), ', '),
                            ' USING (' || p.qual || ')', ' WITH CHECK (' || p.with_check || ')')),
           array_agg(format('DROP POLICY %I ON %I.%I', p.policyname, p.schemaname, p.tablename))
             FILTER (WHERE pol.polrelid <> rel)
      INTO policies, policy_drops
      FROM pg_policy pol
      JOIN pg_class pc ON pc.oid = pol.polrelid
      JOIN pg_policies p ON p.schemaname = pc.relnamespace::regnamespace::text AND p.tablename = pc.relname
                        AND p.policyname = pol.polname
     WHERE pol.polrelid = rel
        OR pol.oid IN (SELECT dp.objid FROM pg_depend dp
                        WHERE dp.classid = 'pg_policy'::regclass AND dp.refclassid = 'pg_class'::regclass
                          AND dp.refobjid = rel);
    IF policy_drops IS NOT NULL THEN
        FOREACH d IN ARRAY policy_drops LOOP
            EXECUTE d;
        END LOOP;
    END IF;
    IF views IS NOT NULL THEN
        FOREACH d IN ARRAY view_names LOOP
            EXECUTE format('ALTER EXTENSION kerai DROP VIEW %s', d);
            EXECUTE format('DROP VIEW %s', d);
        END LOOP;
    END IF;
    IF func_sigs IS NOT NULL THEN
        FOREACH d IN ARRAY func_sigs LOOP
            EXECUTE format('ALTER EXTENSION kerai DROP FUNCTION %s', d);
            EXECUTE format('DROP FUNCTION %s', d);
        END LOOP;
    END IF;
    -- Foreign keys into the table become rows of partition_references.
    -- (The child's column is the one that names the parent's id: a key on (document_id, chunk_id)
    -- is kept by chunk_id.)
    FOR r IN SELECT c.conname, c.conrelid::regclass AS child, a.attname AS child_column, c.confdeltype
               FROM pg_constraint c
               CROSS JOIN LATERAL unnest(c.conkey, c.confkey) AS k(child_attnum, parent_attnum)
               JOIN pg_attribute pa ON pa.attrelid = c.confrelid AND pa.attnum = k.parent_attnum AND pa.attname = 'id'
               JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.child_attnum
              WHERE c.confrelid = rel AND c.contype = 'f' LOOP
        INSERT INTO kerai.partition_references VALUES
            (table_name, split_part(r.child::text, '.', 2), r.child_column,
             CASE r.confdeltype WHEN 'c' THEN 'cascade' ELSE 'set null' END)
        ON CONFLICT DO NOTHING;
        EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', r.child, r.conname);
        refs := refs + 1;
    END LOOP;

    -- The new table, its partitions, the rows.
    EXECUTE format('ALTER TABLE kerai.%I RENAME TO %I', table_name, old_name);
    EXECUTE format('CREATE TABLE kerai.%I (LIKE kerai.%I INCLUDING DEFAULTS INCLUDING GENERATED INCLUDING CONSTRAINTS '
                   'INCLUDING COMMENTS INCLUDING STORAGE) PARTITION BY RANGE (%I)', table_name, old_name, col);
    -- Statistics targets before Citus makes the shards (it copies them, and refuses to change
    -- them on a distributed table).
    IF stats IS NOT NULL THEN
        FOREACH d IN ARRAY stats LOOP
            EXECUTE d;
        END LOOP;
    END IF;
    -- (Distributed before it joins the extension: Citus takes an extension's tables to be on the
    -- workers already, as CREATE EXTENSION made them, and would not make this one there.)
    IF dist_col IS NOT NULL THEN
        PERFORM create_distributed_table(format('kerai.%I', table_name), dist_col,
                                         colocate_with => format('kerai.%I', old_name));
    END IF;
    EXECUTE format('ALTER EXTENSION kerai ADD TABLE kerai.%I', table_name);
    EXECUTE format('CREATE TABLE kerai.%I PARTITION OF kerai.%I DEFAULT', table_name || '_default', table_name);
    EXECUTE format('ALTER EXTENSION kerai ADD TABLE kerai.%I', table_name || '_default');
    PERFORM kerai._keep_in_dumps(format('kerai.%I', table_name || '_default')::regclass);
    EXECUTE format('SELECT date_trunc(''month'', min(%I))::date FROM kerai.%I', col, old_name) INTO first_month;
    m := least(coalesce(first_month, date_trunc('month', now())::date), date_trunc('month', now())::date);
    WHILE m <= (date_trunc('month', now()) + make_interval(months => months_ahead))::date LOOP
        PERFORM kerai._month_partition(table_name, m);
        m := (m + interval '1 month')::date;
    END LOOP;
    SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum) INTO cols
      FROM pg_attribute a
     WHERE a.attrelid = format('kerai.%I', old_name)::regclass AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = '';
    EXECUTE format('INSERT INTO kerai.%I (%s) SELECT %s FROM kerai.%I', table_name, cols, cols, old_name);
    GET DIAGNOSTICS moved = ROW_COUNT;
    EXECUTE format('ALTER EXTENSION kerai DROP TABLE kerai.%I', old_name);
    EXECUTE format('DROP TABLE kerai.%I', old_name);

    -- Keys, indexes, triggers, references, dependants.
    EXECUTE format('ALTER TABLE kerai.%I ADD PRIMARY KEY (%s, %I)', table_name, coalesce(key_cols, 'id'), col);
    IF idx IS NOT NULL THEN
        FOREACH d IN ARRAY idx LOOP
            -- Unique indexes must include the month too.
            IF d LIKE 'CREATE UNIQUE INDEX%' THEN
                d := regexp_replace(d, '\)\s*$', format(', %I)', col));
            END IF;
            EXECUTE d;
        END LOOP;
    END IF;
    IF trg IS NOT NULL THEN
        FOREACH d IN ARRAY trg LOOP
            EXECUTE d;
        END LOOP;
    END IF;
    IF fks_out IS NOT NULL THEN
        FOREACH d IN ARRAY fks_out LOOP
            EXECUTE d;
        END LOOP;
    END IF;
    -- The group column: the first of the parent's key, when it is not the id and the child has it.
    SELECT a.attname INTO group_col
      FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
     WHERE i.indrelid = format('kerai.%I', table_name)::regclass AND i.indisprimary AND a.attname <> 'id';
    SELECT string_agg(format(', %L, %L, %L, %L', pr.child_table, pr.child_column, pr.on_delete,
                             CASE WHEN EXISTS (SELECT 1 FROM pg_attribute a
                                                WHERE a.attrelid = format('kerai.%I', pr.child_table)::regclass
                                                  AND a.attname = group_col AND NOT a.attisdropped)
                                  THEN group_col ELSE '' END), '' ORDER BY pr.child_table, pr.child_column)
      INTO ref_args
      FROM kerai.partition_references pr WHERE pr.parent_table = table_name;
    IF ref_args IS NOT NULL THEN
        EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON kerai.%I FOR EACH ROW '
                       'EXECUTE FUNCTION kerai._partition_references_on_delete(%L%s)',
                       table_name || '_references_on_delete', table_name, table_name, ref_args);
    END IF;
    IF funcs IS NOT NULL THEN
        FOR i IN 1..array_length(funcs, 1) LOOP
            EXECUTE funcs[i];
            EXECUTE format('ALTER EXTENSION kerai ADD FUNCTION %s', func_sigs[i]);
        END LOOP;
    END IF;
    IF views IS NOT NULL THEN
        FOR i IN 1..array_length(views, 1) LOOP
            EXECUTE views[i];
            EXECUTE format('ALTER EXTENSION kerai ADD VIEW %s', view_names[i]);
        END LOOP;
    END IF;
    IF comments IS NOT NULL THEN
        FOREACH d IN ARRAY comments LOOP
            EXECUTE d;
        END LOOP;
    END IF;
    -- The rebuilt table, views and functions get the roles' grants again.
    IF rls THEN
        EXECUTE format('ALTER TABLE kerai.%I ENABLE ROW LEVEL SECURITY', table_name);
    END IF;
    IF policies IS NOT NULL THEN
        FOREACH d IN ARRAY policies LOOP
            EXECUTE d;
        END LOOP;
    END IF;
    PERFORM kerai._grant_roles();
    RETURN jsonb_build_object('table', table_name, 'partitioned_on', col, 'rows_moved', moved,
        'partitions', (SELECT count(*) FROM pg_inherits i WHERE i.inhparent = format('kerai.%I', table_name)::regclass),
        'references_kept_by_trigger', refs);
END
$$;

CREATE FUNCTION kerai.partition_by_month(table_name text, months_ahead integer DEFAULT 3) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
    allowed boolean := kerai._require('kerai_admin', 'kerai.partition_by_month');
BEGIN
    RETURN kerai._partition_by_month(table_name, months_ahead);
END
$$;

-- ---------------------------------------------------------------- job logs, by week

-- The week (Monday 00:00 UTC to the next) of kerai.job_logs that holds `day`, unless it exists.
-- Rows of that week already in the default partition move into it. Its own primary key and
-- index (see site.sql). Made by the owner, so it is not an extension member: pg_dump writes it.
-- Locks: every lock a step needs, taken first and one after the other: the tables the
-- partition's foreign keys name (scrape_jobs, targets), then the whole log table. A log writer
-- may hold one and wait for another, so each wait is at most half a second, less than the
-- deadlock timeout: this gives way (error 55P03, the next run makes the week) and a writer
-- never fails for it.
CREATE FUNCTION kerai._job_logs_week(day date) RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET lock_timeout = '500ms' AS $$
DECLARE
    monday date := day - (extract(isodow FROM day)::integer - 1);
    part text := format('job_logs_w%s', to_char(monday, 'YYYYMMDD'));
    lo timestamptz := (monday::timestamp AT TIME ZONE 'UTC');
    hi timestamptz := ((monday + 7)::timestamp AT TIME ZONE 'UTC');
BEGIN
    IF to_regclass(format('kerai.%I', part)) IS NOT NULL THEN
        RETURN false;
    END IF;
    LOCK TABLE kerai.scrape_jobs, kerai.targets IN SHARE ROW EXCLUSIVE MODE;
    LOCK TABLE kerai.job_logs IN ACCESS EXCLUSIVE MODE;
    IF to_regclass(format('kerai.%I', part)) IS NOT NULL THEN
        RETURN false;  -- made by another run while this one waited
    END IF;
    IF EXISTS (SELECT 1 FROM kerai.job_logs_default WHERE created_at >= lo AND created_at < hi) THEN
        EXECUTE format('CREATE TABLE kerai.%I (LIKE kerai.job_logs INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', part);
        EXECUTE format('WITH moved AS (DELETE FROM kerai.job_logs_default WHERE created_at >= %L AND created_at < %L '
                       'RETURNING *) INSERT INTO kerai.%I SELECT * FROM moved', lo, hi, part);
        EXECUTE format('ALTER TABLE kerai.job_logs ATTACH PARTITION kerai.%I FOR VALUES FROM (%L) TO (%L)', part, lo, hi);
    ELSE
        EXECUTE format('CREATE TABLE kerai.%I PARTITION OF kerai.job_logs FOR VALUES FROM (%L) TO (%L)', part, lo, hi);
    END IF;
    EXECUTE format('ALTER TABLE kerai.%I ADD PRIMARY KEY (id, target_id)', part);
    EXECUTE format('CREATE INDEX %I ON kerai.%I (job_id, id)', part || '_job_idx', part);
    RETURN true;
END
$$;

-- The policy, applied: weeks made from this one to four ahead; weeks wholly older than the
-- retention (setting job_log_retention_days) dropped, and older rows of the default partition
-- deleted. It takes no arguments, so whoever may run it can only apply the configured policy.
CREATE FUNCTION kerai._job_logs_maintain() RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET lock_timeout = '500ms' AS $$
DECLARE
    days integer := (kerai.setting('job_log_retention_days') #>> '{}')::integer;
    cutoff timestamptz := now() - make_interval(days => days);
    made integer := 0;
    dropped integer := 0;
    deleted bigint;
    part record;
BEGIN
    -- Old lines of the default partition go first, before any table lock is taken: log writers
    -- are not held up by it (after an update from 0.2.0 these are most of the lines).
    DELETE FROM kerai.job_logs_default WHERE created_at < cutoff;
    GET DIAGNOSTICS deleted = ROW_COUNT;
    FOR i IN 0..4 LOOP
        IF kerai._job_logs_week((now() AT TIME ZONE 'UTC')::date + 7 * i) THEN
            made := made + 1;
        END IF;
    END LOOP;
    FOR part IN SELECT c.relname, to_date(substr(c.relname, 11), 'YYYYMMDD') AS monday
                  FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                 WHERE i.inhparent = 'kerai.job_logs'::regclass AND c.relname ~ '^job_logs_w[0-9]{8}$' LOOP
        IF ((part.monday + 7)::timestamp AT TIME ZONE 'UTC') <= cutoff THEN
            LOCK TABLE kerai.scrape_jobs, kerai.targets IN SHARE ROW EXCLUSIVE MODE;
            LOCK TABLE kerai.job_logs IN ACCESS EXCLUSIVE MODE;
            EXECUTE format('DROP TABLE kerai.%I', part.relname);
            dropped := dropped + 1;
        END IF;
    END LOOP;
    RETURN jsonb_build_object('retention_days', days, 'weeks_made', made, 'weeks_dropped', dropped,
                              'default_rows_deleted', deleted);
END
$$;

-- Keep job_logs partitioned by week and within the retention. The daemon runs it every hour;
-- without a daemon, schedule it with pg_cron (docs/sql.md).
CREATE FUNCTION kerai.maintain_job_logs() RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
    allowed boolean := kerai._require('kerai_fetcher', 'kerai.maintain_job_logs');
BEGIN
    RETURN kerai._job_logs_maintain();
END
$$;
