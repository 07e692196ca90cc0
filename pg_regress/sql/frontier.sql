-- Scoring, the state machine, the crawl cycle and the fetcher's side of the work queue.
\set VERBOSITY terse
\set ON_ERROR_ROLLBACK on
BEGIN;
-- Errors that name a generated id are shown with the id masked.
CREATE FUNCTION pg_temp.try(statement text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE statement;
    RETURN 'ok';
EXCEPTION WHEN others THEN
    RETURN 'ERROR: ' || regexp_replace(SQLERRM, '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}', '<id>', 'g');
END
$$;
UPDATE kerai.agents SET config = config || '{"rate_limit_seconds": 0, "min_score": 0, "retry_base_seconds": 60, "max_retries": 3}'
 WHERE name = 'kerai_crawl';
SELECT kerai.parse_markdown($md$# Seed

The principle (Friston, 2010) and predictive coding (Rao and Ballard, 1999), again (Friston, 2010).

Curiosity (Schwartenbeck et al., 2019), after (Friston, 2010).
$md$, '{"source_url": "https://example.org/seed"}') AS seed \gset

-- A cycle extracts, scores and claims the best reference for the fetcher.
SELECT c->'extracted'->0->'references' AS refs, jsonb_array_length(c->'claimed') AS claimed,
       c->'claimed'->0->>'text' AS best, c->'frontier' AS frontier, c->'pending' AS pending
  FROM kerai.crawl_cycle() c;

-- Cited in two paragraphs, Friston scores higher and is claimed first.
SELECT left(content, 26) AS ref, status, round(score::numeric, 3) AS score, cite_count FROM kerai.references ORDER BY score DESC, content;
-- Every term of the scores, best first.
SELECT content, score, frequency, entropy, novelty, depth, demand FROM kerai.frontier(10);
SELECT left(content, 20) AS ref, round(kerai.score_reference(id)::numeric, 4) = round(score::numeric, 4) AS maintained
  FROM kerai.references ORDER BY content;
SELECT round(kerai.node_entropy(id)::numeric, 3) AS entropy, left(content, 30) AS paragraph
  FROM kerai.nodes WHERE document_id = :'seed' AND kind = 'paragraph' ORDER BY position;

-- The fetcher leases the item, reports progress, and deposits markdown.
SELECT id AS item, status, request->>'ref_type' AS ref_type, request->>'text' AS text FROM kerai._worker_claim('worker-1', 60, 5) \gset
SELECT :'status' AS status, :'ref_type' AS ref_type, :'text' AS text;
SELECT kerai._worker_progress(:item, 'found', '{"source_url": "https://example.org/friston.pdf"}');
SELECT kerai._worker_progress(:item, 'converting');
SELECT kerai._worker_deposit(:item, $md$# The free-energy principle

Free energy bounds surprise (Helmholtz, 1866).
$md$, '{"source_url": "https://example.org/friston.pdf", "source_type": "pdf", "license": "cc-by"}');
SELECT c->'ingested' IS NOT NULL AND jsonb_array_length(c->'ingested') = 1 AS ingested,
       c->'claimed'->0->>'text' AS next_claim
  FROM kerai.crawl_cycle() c;

-- The reference resolved into a document with provenance, a reward and a perspective.
SELECT from_state, to_state FROM kerai.reference_transitions
 WHERE node_id = (SELECT node_id FROM kerai.crawl_queue WHERE id = :item) ORDER BY id;
SELECT d.metadata->>'source_type' AS source_type, d.metadata->>'license' AS license, d.metadata->>'chain_depth' AS depth,
       d.metadata->>'chain_root' = :'seed' AS rooted, d.metadata->>'resolved_from' IS NOT NULL AS resolved_from,
       d.metadata->>'crawler_agent' IS NOT NULL AS agent
  FROM kerai.nodes d WHERE d.kind = 'document' AND d.metadata->>'source_url' = 'https://example.org/friston.pdf';
SELECT title, depth, parent_document = :'seed' AS from_seed FROM kerai.citation_chain(:'seed', 5) ORDER BY depth, title;
SELECT name, balance_nkoi, rewards FROM kerai.agent_balances;
SELECT weight > 0 AS weighted, note LIKE 'resolved from%' AS noted FROM kerai.perspectives;

-- Failures back off exponentially and die after max_retries.
SELECT id FROM kerai._worker_claim('worker-1', 60, 1) \gset claim_
SELECT kerai._worker_fail(:claim_id, 'failed', 'HTTP 503') - 'ref' - 'next_retry_after' AS failure;
SELECT status, retries, next_retry_after - now() BETWEEN interval '50 seconds' AND interval '70 seconds' AS first_backoff
  FROM kerai.reference_state WHERE node_id = (SELECT node_id FROM kerai.crawl_queue WHERE id = :claim_id);
SELECT kerai.transition(node_id, 'searching') - 'ref' FROM kerai.crawl_queue WHERE id = :claim_id;
SELECT kerai.transition(node_id, 'failed', '{"error": "HTTP 503"}') - 'ref' - 'next_retry_after' FROM kerai.crawl_queue WHERE id = :claim_id;
SELECT next_retry_after - now() BETWEEN interval '110 seconds' AND interval '130 seconds' AS doubled
  FROM kerai.reference_state WHERE node_id = (SELECT node_id FROM kerai.crawl_queue WHERE id = :claim_id);
SELECT kerai.transition(node_id, 'searching') - 'ref' FROM kerai.crawl_queue WHERE id = :claim_id;
SELECT kerai.transition(node_id, 'failed', '{"error": "HTTP 503"}') - 'ref' - 'next_retry_after' FROM kerai.crawl_queue WHERE id = :claim_id;
SELECT kerai.retry_reference(node_id) - 'ref' FROM kerai.crawl_queue WHERE id = :claim_id;

-- Illegal moves and unknown ids or states name what was wrong.
SELECT pg_temp.try(format('SELECT kerai.transition(%L, %L)', node_id, 'ingesting')) FROM kerai.crawl_queue WHERE id = :claim_id;
SELECT kerai.transition(node_id, 'lost') FROM kerai.crawl_queue WHERE id = :claim_id;
SELECT kerai.transition('00000000-0000-0000-0000-000000000000', 'searching');
SELECT kerai.score_reference('00000000-0000-0000-0000-000000000000');
SELECT kerai._worker_progress(999, 'found');

-- The dashboard.
SELECT * FROM kerai.corpus_overview;
SELECT * FROM kerai.documents_by_depth ORDER BY chain_depth;
SELECT content, citations FROM kerai.priority_queue;
SELECT ingested FROM kerai.hourly_ingestion;
ROLLBACK;
