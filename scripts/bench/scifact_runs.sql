-- A TREC run of kerai.search on SciFact for one mode (psql -v mode=fts|vector|hybrid), on
-- standard output: the best chunk of each document decides the document's rank (each
-- abstract is one or two chunks).
\set ON_ERROR_STOP on
CREATE TEMP TABLE run AS
SELECT q.id AS qid, substr(h.url, 9) AS docid, h.score,
       row_number() OVER (PARTITION BY q.id ORDER BY h.score DESC, h.url) AS rank, 'kerai-' || :'mode' AS tag
  FROM kerai_bench.queries q,
       LATERAL (SELECT DISTINCT ON (s.url) s.url, s.score
                  FROM kerai.search(q.text, 100, jsonb_build_object('mode', :'mode')) s
                 ORDER BY s.url, s.score DESC) h;
COPY (SELECT qid || ' Q0 ' || docid || ' ' || rank || ' ' || round(score::numeric, 6) || ' ' || tag FROM run ORDER BY qid, rank) TO STDOUT;
