-- Extractive answers on SciFact's 300 test queries (kerai.answer, no chat model): the share
-- whose first cited passage comes from a document the qrels mark relevant to the query, and
-- the share whose first answer sentence is a heading or navigation fragment (under five
-- words, or no sentence end). Needs kerai_bench.queries and kerai_bench.qrels.
\set ON_ERROR_STOP on
CREATE TEMP TABLE answers AS
SELECT q.id AS qid, a
  FROM kerai_bench.queries q, LATERAL kerai.answer(q.text) a;
CREATE TEMP TABLE firsts AS
SELECT qid,
       (regexp_match(a->>'answer', '\[(\d+)\]'))[1]::integer AS cited,
       btrim(split_part(a->>'answer', ' [', 1)) AS sentence,
       a->'citations' AS citations
  FROM answers;
SELECT count(*) AS answers,
       round(avg(CASE WHEN EXISTS (
                   SELECT 1
                     FROM jsonb_array_elements(f.citations) c
                     JOIN kerai_bench.qrels r ON r.qid = f.qid AND 'scifact:' || r.docid = c->>'url'
                    WHERE (c->>'order')::integer = f.cited)
                 THEN 1 ELSE 0 END), 3) AS first_cited_relevant,
       round(avg(CASE WHEN f.cited IS NULL
                        OR array_length(regexp_split_to_array(f.sentence, '\s+'), 1) < 5
                        OR f.sentence !~ '[.!?)"”’\]]$'
                 THEN 1 ELSE 0 END), 3) AS heading_or_navigation
  FROM firsts f;
