-- Extractive answers on SciFact's 300 test queries (kerai.answer, no chat model): the share
-- whose first cited passage comes from a document the qrels mark relevant to the query, and
-- the share whose first answer sentence is a heading or navigation fragment (under five
-- words, or no sentence end), and the share with a cited passage whose quoted text is one.
-- Needs kerai_bench.queries and kerai_bench.qrels.
\set ON_ERROR_STOP on
CREATE TEMP TABLE answers AS
SELECT q.id AS qid, a
  FROM kerai_bench.queries q, LATERAL kerai.answer(q.text) a;
-- The first sentence is what comes before the first passage marker ` [n]` whose n is a passage
-- the answer cites: a `[OACs]` or `[14]` inside the text is not one.
CREATE TEMP TABLE firsts AS
SELECT qid,
       mk.n AS cited,
       btrim(left(a->>'answer', strpos(a->>'answer', ' [' || mk.n || ']') - 1)) AS sentence,
       a->'citations' AS citations
  FROM answers
  LEFT JOIN LATERAL (
       SELECT m[1]::integer AS n
         FROM regexp_matches(a->>'answer', ' \[(\d{1,6})\]', 'g') WITH ORDINALITY AS x(m, i)
        WHERE EXISTS (SELECT 1 FROM jsonb_array_elements(a->'citations') c WHERE (c->>'order')::integer = m[1]::integer)
        ORDER BY i LIMIT 1) mk ON true;
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
                 THEN 1 ELSE 0 END), 3) AS heading_or_navigation,
       -- Any cited passage's quoted text a fragment: under five words, or no sentence end.
       round(avg(CASE WHEN EXISTS (
                   SELECT 1 FROM jsonb_array_elements(f.citations) c
                    WHERE array_length(regexp_split_to_array(btrim(c->>'text'), '\s+'), 1) < 5
                       OR btrim(c->>'text') !~ '[.!?)"”’\]]$')
                 THEN 1 ELSE 0 END), 3) AS cited_text_fragment
  FROM firsts f;
