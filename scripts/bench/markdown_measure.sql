-- parse_markdown throughput over a 10 MB markdown corpus, against COPY of the same node rows
-- (the floor Postgres allows for writing them), and detect_citations over the same text.
-- Input: kerai_bench.md (markdown, metadata), loaded by scripts/bench.sh; psql variable nodes_file (a server-side path).
\set ON_ERROR_STOP on
\pset format unaligned
\pset tuples_only on
SET client_min_messages = warning;
SELECT format('corpus: %s documents, %s MB of markdown', count(*), round(sum(octet_length(markdown)) / 1e6, 1)) FROM kerai_bench.md;

CREATE TEMP TABLE bench_t (what text, t timestamptz DEFAULT clock_timestamp());
INSERT INTO bench_t VALUES ('parse start');
SELECT count(kerai.parse_markdown(markdown, metadata)) FROM kerai_bench.md \g /dev/null
INSERT INTO bench_t VALUES ('parse end');

SELECT format('parse_markdown: %s nodes in %s s = %s nodes/s, %s MB/s',
              n, round(s::numeric, 2), round(n / s), round((SELECT sum(octet_length(markdown)) FROM kerai_bench.md) / 1e6 / s, 2))
FROM (SELECT (SELECT count(*) FROM kerai.nodes) AS n,
             extract(epoch FROM (SELECT t FROM bench_t WHERE what = 'parse end') - (SELECT t FROM bench_t WHERE what = 'parse start')) AS s) x;

-- COPY the same rows back into the same table (same indexes, constraints and triggers).
COPY (SELECT id, instance_id, kind, content, parent_id, position, document_id, metadata, created_at FROM kerai.nodes)
  TO :'nodes_file';
TRUNCATE kerai.nodes CASCADE;
INSERT INTO bench_t VALUES ('copy start');
COPY kerai.nodes (id, instance_id, kind, content, parent_id, position, document_id, metadata, created_at) FROM :'nodes_file';
INSERT INTO bench_t VALUES ('copy end');
SELECT format('COPY of the same rows: %s s = %s nodes/s; parse_markdown / COPY throughput ratio %s',
              round(c::numeric, 2), round(n / c), round((c / p)::numeric, 2))
FROM (SELECT (SELECT count(*) FROM kerai.nodes) AS n,
             extract(epoch FROM (SELECT t FROM bench_t WHERE what = 'copy end') - (SELECT t FROM bench_t WHERE what = 'copy start')) AS c,
             extract(epoch FROM (SELECT t FROM bench_t WHERE what = 'parse end') - (SELECT t FROM bench_t WHERE what = 'parse start')) AS p) x;

-- Citations in the same text.
INSERT INTO bench_t VALUES ('cite start');
SELECT count(*) FROM kerai_bench.md, LATERAL kerai.detect_citations(markdown) \g /dev/null
INSERT INTO bench_t VALUES ('cite end');
SELECT format('detect_citations: %s MB/s over the same markdown',
              round((SELECT sum(octet_length(markdown)) FROM kerai_bench.md) / 1e6 /
                    extract(epoch FROM (SELECT t FROM bench_t WHERE what = 'cite end') - (SELECT t FROM bench_t WHERE what = 'cite start'))::numeric, 2));
