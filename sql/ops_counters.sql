-- Corpus counters, kept by triggers so that the dashboard views answer in constant time at any
-- corpus size. Writers append deltas (no row is ever updated in place, so concurrent
-- ingestions never wait on each other); readers sum them; kerai.crawl_cycle() compacts them.
-- A delta names one document of the rows it counts (document_id): on a distributed database
-- it lands on the shard of those rows, where the trigger that writes it runs
-- (docs/scale-out.md); which document does not matter for the sums.

CREATE TABLE kerai.counter_deltas (
    id          bigserial,
    document_id uuid NOT NULL,
    name        text NOT NULL,
    delta       bigint NOT NULL,
    PRIMARY KEY (document_id, id)
);
CREATE INDEX counter_deltas_name_idx ON kerai.counter_deltas (name);
COMMENT ON TABLE kerai.counter_deltas IS
    'Append-only deltas behind kerai.counters, each next to one document of the rows it counts; compacted by '
    'kerai._compact_counters().';

CREATE VIEW kerai.counters AS
SELECT name, sum(delta)::bigint AS value FROM kerai.counter_deltas GROUP BY name;
COMMENT ON VIEW kerai.counters IS
    'Every corpus counter (name, value), summed from kerai.counter_deltas: nodes, kind:document, '
    'kind:reference, kind:concept, documents_at_depth:N, `references:<status>`. kerai.counter(name) reads one.';

-- PL/pgSQL: a distributed database plans a SQL function's parameters poorly (Citus refuses
-- them over distributed tables).
CREATE FUNCTION kerai.counter(counter_name text) RETURNS bigint
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
BEGIN
    RETURN (SELECT coalesce(sum(d.delta), 0)::bigint FROM kerai.counter_deltas d WHERE d.name = counter_name);
END
$$;

-- Fold all deltas of each counter into one row. Safe to run concurrently with writers.
CREATE FUNCTION kerai._compact_counters() RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    folded integer;
BEGIN
    -- One compaction at a time; writers are never blocked.
    IF NOT pg_try_advisory_xact_lock(hashtext('kerai._compact_counters')) THEN
        RETURN 0;
    END IF;
    WITH gone AS (
        DELETE FROM kerai.counter_deltas RETURNING document_id, name, delta
    ), summed AS (
        INSERT INTO kerai.counter_deltas (document_id, name, delta)
        SELECT (array_agg(document_id))[1], name, sum(delta) FROM gone GROUP BY name HAVING sum(delta) <> 0
        RETURNING 1
    )
    SELECT count(*) INTO folded FROM summed;
    RETURN folded;
END
$$;

-- Append deltas, one row at a time: on a distributed database the counting triggers run on a
-- shard, where Citus runs a plain insert into the co-located shard of counter_deltas but not an
-- INSERT ... SELECT over a trigger's transition table (docs/scale-out.md).
CREATE FUNCTION kerai._add_deltas(docs uuid[], names text[], deltas bigint[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    FOR i IN 1 .. coalesce(cardinality(names), 0) LOOP
        INSERT INTO kerai.counter_deltas (document_id, name, delta) VALUES (docs[i], names[i], deltas[i]);
    END LOOP;
END
$$;

-- Add the deltas for a set of inserted (sign 1) or deleted (sign -1) nodes, next to one of
-- their documents. (PL/pgSQL, whose plan is kept for the session: a SQL function is parsed
-- again on each call.)
CREATE FUNCTION kerai._add_node_deltas(sign integer, kinds text[], depths text[], doc uuid) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    names text[];
    deltas bigint[];
BEGIN
    IF doc IS NULL THEN
        RETURN;
    END IF;
    SELECT array_agg(name), array_agg(sign * n) INTO names, deltas FROM (
        SELECT name, count(*) AS n FROM (
            SELECT 'nodes' AS name FROM unnest(kinds)
            UNION ALL
            SELECT 'kind:' || k FROM unnest(kinds) k WHERE k IN ('document', 'reference', 'concept')
            UNION ALL
            SELECT 'documents_at_depth:' || coalesce(d, '0')
              FROM unnest(kinds, depths) AS u(k, d) WHERE k = 'document'
        ) x GROUP BY name
    ) y;
    IF names IS NOT NULL THEN
        PERFORM kerai._add_deltas(array_fill(doc, ARRAY[cardinality(names)]), names, deltas);
    END IF;
END
$$;

CREATE FUNCTION kerai._count_nodes() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM kerai._add_node_deltas(1, array_agg(kind), array_agg(metadata->>'chain_depth'),
                                       (array_agg(document_id))[1])
           FROM new_rows;
    ELSIF TG_OP = 'DELETE' THEN
        PERFORM kerai._add_node_deltas(-1, array_agg(kind), array_agg(metadata->>'chain_depth'),
                                       (array_agg(document_id))[1])
           FROM old_rows;
    ELSE
        -- A document whose chain depth changed moves between depth counters.
        PERFORM kerai._add_node_deltas(-1, array_agg(o.kind), array_agg(o.metadata->>'chain_depth'),
                                       (array_agg(o.document_id))[1]),
                kerai._add_node_deltas(1, array_agg(n.kind), array_agg(n.metadata->>'chain_depth'),
                                       (array_agg(n.document_id))[1])
           FROM old_rows o JOIN new_rows n ON n.id = o.id
          WHERE n.kind = 'document'
            AND o.metadata->>'chain_depth' IS DISTINCT FROM n.metadata->>'chain_depth';
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER nodes_count_insert AFTER INSERT ON kerai.nodes
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION kerai._count_nodes();
CREATE TRIGGER nodes_count_delete AFTER DELETE ON kerai.nodes
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION kerai._count_nodes();
CREATE TRIGGER nodes_count_update AFTER UPDATE ON kerai.nodes
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION kerai._count_nodes();
