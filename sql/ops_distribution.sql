-- Scale-out on paper (docs/scale-out.md): the column each table would be distributed by on a
-- distributed Postgres (Citus), so that the rows that are read and written together land on one
-- machine. Three groups of rows travel together:
--   document  a document's nodes, edges, chunks, vectors, entities and claims. A reference (or
--             concept) node is shared by every document that cites it, so it names itself as
--             its document, and its frontier rows (reference_state, its transitions, its
--             crawl_queue row) carry that id in node_id.
--   target    a target's config versions, pages, page versions, jobs, job URLs and job logs.
--   request   an AI request, its response and its citations.
-- Every row carries its group's key in a NOT NULL column. kerai's own writers set it; a row
-- inserted by hand without it gets it from its parent row (the triggers below), so a
-- single-server user never has to think about it.

-- Every table has its key in its definition (the document of an edge is its source node's, of
-- a vector and of an entity their chunk's, of a perspective its node's), and every primary key,
-- unique constraint and foreign key inside a group holds it, as Citus requires (the lookups
-- that span documents are next: see pg_regress/sql/distribution.sql). Reference nodes name
-- themselves (kerai._fill_node_document).

-- A node without a document_id: a node without a parent is its own document (a document, a
-- reference, a concept), which gets its row in kerai.documents; any other node belongs to its
-- parent's document. (A node inserted with its document_id needs its kerai.documents row
-- first, as kerai's writers make it.)
CREATE FUNCTION kerai._fill_node_document() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.parent_id IS NULL THEN
        NEW.document_id := NEW.id;
        INSERT INTO kerai.documents (id) VALUES (NEW.id) ON CONFLICT DO NOTHING;
    ELSE
        SELECT p.document_id INTO NEW.document_id FROM kerai.nodes p WHERE p.id = NEW.parent_id;
    END IF;
    RETURN NEW;
END
$$;
COMMENT ON FUNCTION kerai._fill_node_document() IS
    'A node inserted without document_id gets its own id and a kerai.documents row (no parent) or its parent''s '
    'document (docs/scale-out.md).';
CREATE TRIGGER nodes_fill_document BEFORE INSERT ON kerai.nodes
    FOR EACH ROW WHEN (NEW.document_id IS NULL) EXECUTE FUNCTION kerai._fill_node_document();

-- Deleting a document's root node by hand (DELETE FROM kerai.nodes WHERE id = ...) deletes the
-- document: its kerai.documents row, which takes its passages, vectors, claims, keys in the
-- queue and frontier rows with it, as 0.2.0's foreign keys to the node did.
CREATE FUNCTION kerai._delete_node_document() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM kerai.documents d WHERE d.id = OLD.id;
    RETURN NULL;
END
$$;
COMMENT ON FUNCTION kerai._delete_node_document() IS
    'A deleted root node (a document, reference or concept) takes its kerai.documents row, and so everything of the '
    'document, with it.';
CREATE TRIGGER nodes_delete_document AFTER DELETE ON kerai.nodes
    FOR EACH ROW WHEN (OLD.parent_id IS NULL AND OLD.document_id = OLD.id)
    EXECUTE FUNCTION kerai._delete_node_document();

-- A row inserted without its key takes it from its parent row. Arguments: the key column, the
-- parent table, the column of the row that names the parent (by id), the parent's key column.
CREATE FUNCTION kerai._fill_distribution_key() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    parent uuid;
    key uuid;
BEGIN
    EXECUTE format('SELECT ($1).%I', TG_ARGV[2]) INTO parent USING NEW;
    EXECUTE format('SELECT %I FROM kerai.%I WHERE id = $1', TG_ARGV[3], TG_ARGV[1]) INTO key USING parent;
    IF key IS NULL THEN
        RAISE EXCEPTION 'kerai: a row of kerai.% names % = %, which is not in kerai.%',
            TG_TABLE_NAME, TG_ARGV[2], coalesce(parent::text, 'NULL'), TG_ARGV[1]
            USING ERRCODE = '23503', HINT = format('insert the %s row first, or give %s', TG_ARGV[1], TG_ARGV[0]);
    END IF;
    RETURN jsonb_populate_record(NEW, jsonb_build_object(TG_ARGV[0], key));
END
$$;
COMMENT ON FUNCTION kerai._fill_distribution_key() IS
    'A row inserted without its distribution key takes it from its parent row (docs/scale-out.md).';
CREATE TRIGGER edges_fill_document BEFORE INSERT ON kerai.edges
    FOR EACH ROW WHEN (NEW.document_id IS NULL)
    EXECUTE FUNCTION kerai._fill_distribution_key('document_id', 'nodes', 'source_id', 'document_id');
CREATE TRIGGER embeddings_fill_document BEFORE INSERT ON kerai.embeddings
    FOR EACH ROW WHEN (NEW.document_id IS NULL)
    EXECUTE FUNCTION kerai._fill_distribution_key('document_id', 'chunks', 'chunk_id', 'document_id');
CREATE TRIGGER entities_fill_document BEFORE INSERT ON kerai.entities
    FOR EACH ROW WHEN (NEW.document_id IS NULL)
    EXECUTE FUNCTION kerai._fill_distribution_key('document_id', 'chunks', 'chunk_id', 'document_id');
CREATE TRIGGER perspectives_fill_document BEFORE INSERT ON kerai.perspectives
    FOR EACH ROW WHEN (NEW.document_id IS NULL)
    EXECUTE FUNCTION kerai._fill_distribution_key('document_id', 'nodes', 'node_id', 'document_id');
CREATE TRIGGER page_versions_fill_target BEFORE INSERT ON kerai.page_versions
    FOR EACH ROW WHEN (NEW.target_id IS NULL)
    EXECUTE FUNCTION kerai._fill_distribution_key('target_id', 'pages', 'page_id', 'target_id');
CREATE TRIGGER job_urls_fill_target BEFORE INSERT ON kerai.job_urls
    FOR EACH ROW WHEN (NEW.target_id IS NULL)
    EXECUTE FUNCTION kerai._fill_distribution_key('target_id', 'scrape_jobs', 'job_id', 'target_id');
CREATE TRIGGER job_logs_fill_target BEFORE INSERT ON kerai.job_logs
    FOR EACH ROW WHEN (NEW.target_id IS NULL)
    EXECUTE FUNCTION kerai._fill_distribution_key('target_id', 'scrape_jobs', 'job_id', 'target_id');
CREATE TRIGGER citations_fill_request BEFORE INSERT ON kerai.citations
    FOR EACH ROW WHEN (NEW.request_id IS NULL)
    EXECUTE FUNCTION kerai._fill_distribution_key('request_id', 'ai_responses', 'response_id', 'request_id');

-- The plan, one row per table (docs/scale-out.md explains each choice; pg_regress/sql/
-- distribution.sql checks it against the schema and the rows).
CREATE VIEW kerai.distribution_plan AS
SELECT t.table_name, t.placement, t.distribution_column, t.colocation, t.reason
  FROM (VALUES
    ('documents', 'distributed', 'id', 'document', 'one row per document, reference or concept: the key the group shares'),
    ('counter_deltas', 'distributed', 'document_id', 'document', 'a change of a corpus count, next to one document of the rows it counts: written by their triggers on their shard, summed on read'),
    ('cite_count_queue', 'distributed', 'document_id', 'document', 'the references whose cites edges a document gained or lost, to count again: written by the edges'' triggers on their shard'),
    ('nodes', 'distributed', 'document_id', 'document', 'a document''s tree; a reference or concept node is its own document'),
    ('edges', 'distributed', 'document_id', 'document', 'the source node''s document: a document''s cites edges, a reference''s resolves_to edge'),
    ('chunks', 'distributed', 'document_id', 'document', 'the passages of a document'),
    ('embeddings', 'distributed', 'document_id', 'document', 'next to their chunk'),
    ('entities', 'distributed', 'document_id', 'document', 'next to their chunk'),
    ('claims', 'distributed', 'document_id', 'document', 'next to their document'),
    ('extraction_queue', 'distributed', 'document_id', 'document', 'the documents waiting for reference extraction'),
    ('document_keys', 'distributed', 'key', 'key', 'a document''s identity, DOIs and URLs, each naming one document: found by key'),
    ('perspectives', 'distributed', 'document_id', 'document', 'an agent''s weight on a node, next to the node'),
    ('reference_state', 'distributed', 'node_id', 'document', 'a reference''s frontier row: its node is its own document'),
    ('reference_keys', 'distributed', 'key', 'key', 'a DOI or arXiv id naming one reference: found by key'),
    ('reference_transitions', 'distributed', 'node_id', 'document', 'a reference''s history, next to it'),
    ('crawl_queue', 'distributed', 'node_id', 'document', 'the fetch of a reference''s open copy, next to it'),
    ('target_config_versions', 'distributed', 'target_id', 'target', 'a target''s configuration history'),
    ('pages', 'distributed', 'target_id', 'target', 'the URLs of a target'),
    ('page_versions', 'distributed', 'target_id', 'target', 'the snapshots of a target''s pages'),
    ('scrape_jobs', 'distributed', 'target_id', 'target', 'the runs of a target'),
    ('job_urls', 'distributed', 'target_id', 'target', 'the URLs of a target''s runs'),
    ('job_logs', 'distributed', 'target_id', 'target', 'the logs of a target''s runs'),
    ('ai_requests', 'distributed', 'id', 'request', 'a question asked'),
    ('ai_responses', 'distributed', 'request_id', 'request', 'its answer'),
    ('citations', 'distributed', 'request_id', 'request', 'the passages the answer cites (copied, so they stay when the corpus changes)'),
    ('blobs', 'distributed', 'target_id', 'target', 'large raw HTML of a target''s versions, once per content: written by the versions'' trigger on their shard'),
    ('reward_ledger', 'distributed', 'id', 'ledger', 'append-only rewards; summed per agent'),
    ('settings', 'reference', NULL, NULL, 'read by every function on every node'),
    ('users', 'reference', NULL, NULL, 'read by the row-level security policies on every node'),
    ('targets', 'reference', NULL, NULL, 'a few rows, found by name (unique across the cluster), read by every crawl'),
    ('agents', 'reference', NULL, NULL, 'few rows, joined to perspectives and rewards'),
    ('reward_schedule', 'reference', NULL, NULL, 'a few fixed rows'),
    ('reference_states', 'reference', NULL, NULL, 'the frontier''s state machine, fixed'),
    ('reference_moves', 'reference', NULL, NULL, 'the frontier''s state machine, fixed'),
    ('corpus_authors', 'reference', NULL, NULL, 'per-author counts read when scoring any reference'),
    ('partition_references', 'coordinator', NULL, NULL, 'kerai.partition_by_month''s bookkeeping'),
    ('daemons', 'coordinator', NULL, NULL, 'the companion processes at work now'),
    ('crawler_supervisor', 'coordinator', NULL, NULL, 'the crawler kerai.start_crawler supervises'),
    ('search_statistics', 'coordinator', NULL, NULL, 'the chunks'' full-text statistics, merged from their shards for kerai.search')
  ) AS t(table_name, placement, distribution_column, colocation, reason);
COMMENT ON VIEW kerai.distribution_plan IS
    'Scale-out on paper (docs/scale-out.md): for each kerai table, its placement on a distributed Postgres '
    '(distributed, reference or coordinator), the distribution column, the co-location group (document, target, '
    'request, key, ledger) and why; kerai.distribute() makes it.';

-- The plan, made: on a Citus coordinator with its workers added, every table of the plan
-- becomes a reference or distributed table in its co-location group, rows and all. In one
-- transaction on the coordinator (the workers' copies of the tables, which hold no rows, lose
-- their foreign keys on connections of their own), in the order Citus needs for an
-- extension's tables:
--   1. the foreign keys between kerai's tables are set aside, on the coordinator and on the
--      workers' copies of the tables (CREATE EXTENSION made them there too), so that no table
--      is turned into a "Citus local table" halfway;
--   2. the two triggers that let a restore replace the rows CREATE EXTENSION seeds go (they
--      would fire during Citus's own copy of the rows; a distributed database is backed up
--      with its own tools, docs/backups.md);
--   3. reference tables, then each group from its first table (a document's kerai.documents
--      row, a target's pages, a request, a key), with the counting and filling triggers, which
--      write only rows of their own group (citus.enable_unsafe_triggers, for this call only),
--      switched off while Citus copies the rows (they would count them again);
--   4. the rows each table held before are removed from the coordinator's own copy (Citus
--      leaves them on disk, out of sight), the foreign keys come back and the triggers on.
-- A database already laid out is left as it is.
CREATE FUNCTION kerai.distribute() RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
    allowed boolean := kerai._require('kerai_admin', 'kerai.distribute');
    fk record;
    t record;
    helper text;
    anchor text;
    failed text;
    refs integer := 0;
    dists integer := 0;
    keys integer := 0;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
        RAISE EXCEPTION 'kerai.distribute: this database has no Citus extension' USING ERRCODE = '0A000',
            HINT = 'install Citus from your packages, load it (shared_preload_libraries = ''citus''), '
                   'CREATE EXTENSION citus, add the workers with citus_add_node, then call kerai.distribute() '
                   'again (docs/scale-out.md)';
    END IF;
    -- A write that references a reference table (a page its target, a job its user) makes Citus
    -- lock that table's shard on every node (lock_shard_resources), which by default only a
    -- role that may modify the table itself may do: the fetcher, which may only read
    -- kerai.targets, could not write a page. kerai's roles keep their grants; the database
    -- skips that check instead (Citus sends the setting to the workers; new sessions see it).
    EXECUTE format('ALTER DATABASE %I SET citus.skip_advisory_lock_permission_checks = on', current_database());
    -- Citus lets a transaction read the shards it wrote only as the role that wrote them: the
    -- near-duplicate check, which reads a target's pages as the extension's owner on one
    -- server (so that the band index serves it past row-level security), runs as its caller,
    -- the fetcher, which sees every page anyway.
    ALTER FUNCTION kerai._near_duplicate(uuid, uuid, bigint[], bigint[]) SECURITY INVOKER;
    -- Row-level security on a shard: the policies' helpers read kerai.targets and kerai.users
    -- (reference tables) inside a query on a shard, a nested query Citus runs only when allowed.
    -- On one server they stay plain SQL functions, which the planner inlines into the policies.
    -- So do the delete trigger of a table kerai.partition_by_month partitions, which deletes a
    -- row's children in their shard, and kerai.html on a shard's row, which may read kerai.blobs.
    -- The workers first, each on its own connection, then the coordinator.
    FOR helper IN SELECT unnest(ARRAY['kerai._target_visible(uuid)', 'kerai.current_user_id()',
                                      'kerai._partition_references_on_delete()', 'kerai.html(anyelement)']) LOOP
        SELECT string_agg(format('%s:%s: %s', w.nodename, w.nodeport, w.result), '; ') INTO failed
          FROM run_command_on_workers(format('ALTER FUNCTION %s SET citus.allow_nested_distributed_execution = on',
                                             helper)) w
         WHERE NOT w.success;
        IF failed IS NOT NULL THEN
            RAISE EXCEPTION 'kerai.distribute: a worker refused to change %: %', helper, failed
                USING ERRCODE = '55000',
                      HINT = 'check that every worker is up and has kerai at the coordinator''s version, then call kerai.distribute() again';
        END IF;
        EXECUTE format('ALTER FUNCTION %s SET citus.allow_nested_distributed_execution = on', helper);
    END LOOP;
    IF NOT EXISTS (SELECT 1 FROM kerai.distribution_plan p
                    WHERE p.placement <> 'coordinator'
                      AND NOT EXISTS (SELECT 1 FROM pg_dist_partition d
                                       WHERE d.logicalrelid = format('kerai.%I', p.table_name)::regclass)) THEN
        RETURN jsonb_build_object('reference_tables', 0, 'distributed_tables', 0, 'foreign_keys', 0,
                                  'already_distributed', true);
    END IF;
    PERFORM set_config('citus.enable_unsafe_triggers', 'on', true);
    PERFORM set_config('citus.multi_shard_modify_mode', 'sequential', true);
    -- The full-text statistics of the chunks, as ANALYZE last gathered them here: kerai.search
    -- weighs words by them until kerai.refresh_search_statistics reads the shards' own.
    PERFORM kerai._store_search_statistics(c.reltuples, s.most_common_elems::text::text[],
               (s.most_common_elem_freqs[1:cardinality(s.most_common_elems::text::text[])])::float8[],
               s.most_common_elem_freqs[cardinality(s.most_common_elems::text::text[]) + 1] / 2, 0)
      FROM pg_class c JOIN pg_stats s ON s.schemaname = 'kerai' AND s.tablename = 'chunks' AND s.attname = 'fts'
     WHERE c.oid = 'kerai.chunks'::regclass AND c.reltuples > 0 AND s.most_common_elems IS NOT NULL;

    CREATE TEMP TABLE kerai_distribute_keys ON COMMIT DROP AS
    SELECT format('kerai.%I', rel.relname) AS tbl, c.conname, pg_get_constraintdef(c.oid) AS def
      FROM pg_constraint c JOIN pg_class rel ON rel.oid = c.conrelid
     WHERE c.contype = 'f' AND c.connamespace = 'kerai'::regnamespace AND c.conparentid = 0;
    FOR fk IN SELECT * FROM kerai_distribute_keys LOOP
        EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', fk.tbl, fk.conname);
        -- On the workers' copies, each on its own connection (they hold no rows).
        SELECT string_agg(format('%s:%s: %s', w.nodename, w.nodeport, w.result), '; ') INTO failed
          FROM run_command_on_workers(format('ALTER TABLE %s DROP CONSTRAINT IF EXISTS %I', fk.tbl, fk.conname)) w
         WHERE NOT w.success;
        IF failed IS NOT NULL THEN
            RAISE EXCEPTION 'kerai.distribute: a worker refused to drop % on %: %', fk.conname, fk.tbl, failed
                USING ERRCODE = '55000',
                      HINT = 'check that every worker is up and has kerai at the coordinator''s version, then call kerai.distribute() again';
        END IF;
    END LOOP;
    DROP TRIGGER IF EXISTS agents_replace_seeded ON kerai.agents;
    DROP TRIGGER IF EXISTS reward_schedule_replace_seeded ON kerai.reward_schedule;
    -- Citus copies the rows into the shards with the tables' triggers, which would count them
    -- a second time: they are off for the copy (Citus makes the shards' triggers in the same
    -- state) and on again at the end.
    FOR t IN SELECT p.table_name FROM kerai.distribution_plan p WHERE p.placement <> 'coordinator' LOOP
        EXECUTE format('ALTER TABLE kerai.%I DISABLE TRIGGER USER', t.table_name);
    END LOOP;

    FOR t IN SELECT p.table_name FROM kerai.distribution_plan p
              WHERE p.placement = 'reference'
                AND NOT EXISTS (SELECT 1 FROM pg_dist_partition d
                                 WHERE d.logicalrelid = format('kerai.%I', p.table_name)::regclass) LOOP
        PERFORM create_reference_table(format('kerai.%I', t.table_name));
        refs := refs + 1;
    END LOOP;
    FOR t IN SELECT p.table_name, p.distribution_column, p.colocation,
                    (array_agg(p.table_name) OVER (PARTITION BY p.colocation
                        ORDER BY p.table_name NOT IN ('documents', 'pages', 'ai_requests', 'document_keys'),
                                 p.table_name))[1] AS first
               FROM kerai.distribution_plan p
              WHERE p.placement = 'distributed'
              ORDER BY p.colocation, p.table_name NOT IN ('documents', 'pages', 'ai_requests', 'document_keys'),
                       p.table_name LOOP
        CONTINUE WHEN EXISTS (SELECT 1 FROM pg_dist_partition d
                               WHERE d.logicalrelid = format('kerai.%I', t.table_name)::regclass);
        anchor := CASE WHEN t.first = t.table_name THEN 'none' ELSE format('kerai.%I', t.first) END;
        PERFORM create_distributed_table(format('kerai.%I', t.table_name), t.distribution_column,
                                         colocate_with => anchor);
        dists := dists + 1;
    END LOOP;

    FOR t IN SELECT p.table_name FROM kerai.distribution_plan p WHERE p.placement <> 'coordinator' LOOP
        PERFORM truncate_local_data_after_distributing_table(format('kerai.%I', t.table_name));
    END LOOP;
    FOR fk IN SELECT * FROM kerai_distribute_keys LOOP
        EXECUTE format('ALTER TABLE %s ADD CONSTRAINT %I %s', fk.tbl, fk.conname, fk.def);
        keys := keys + 1;
    END LOOP;
    FOR t IN SELECT p.table_name FROM kerai.distribution_plan p WHERE p.placement <> 'coordinator' LOOP
        EXECUTE format('ALTER TABLE kerai.%I ENABLE TRIGGER USER', t.table_name);
    END LOOP;
    RETURN jsonb_build_object('reference_tables', refs, 'distributed_tables', dists, 'foreign_keys', keys,
                              'already_distributed', false);
END
$$;
