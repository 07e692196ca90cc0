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
-- One work, fetched once. A deposit registers the keys its work is known by (DOI, arXiv id,
-- normalised URLs); another reference to it is linked to the same document without a fetch.
UPDATE kerai.agents SET config = config || '{"claims_per_cycle": 10}' WHERE name = 'kerai_crawl';
SELECT count(kerai.transition(node_id, 'skipped', '{"reason": "not part of this test"}')) AS set_aside
  FROM kerai.reference_state WHERE status = 'unresolved';
SELECT kerai.parse_markdown($md$# Twice

See doi:10.5555/once and the same work at https://example.org/once.pdf#page=2, then arXiv:2107.12979.
$md$, '{"source_url": "https://example.org/twice"}') AS twice \gset
SELECT jsonb_array_length(c->'claimed') AS claimed FROM kerai.crawl_cycle() c;
SELECT q.id AS doi_item FROM kerai.crawl_queue q JOIN kerai.references r ON r.id = q.node_id
 WHERE r.content = '10.5555/once' AND q.status = 'pending' \gset
SELECT q.id AS url_item FROM kerai.crawl_queue q JOIN kerai.references r ON r.id = q.node_id
 WHERE r.url = 'https://example.org/once.pdf' AND q.status = 'pending' \gset
SELECT q.id AS arxiv_item FROM kerai.crawl_queue q JOIN kerai.references r ON r.id = q.node_id
 WHERE r.arxiv = '2107.12979' AND q.status = 'pending' \gset
SELECT count(*) AS leased FROM kerai._worker_claim('worker-2', 60, 10);
-- Nothing known yet: the fetcher fetches.
SELECT kerai._worker_known(:doi_item, '{"doi": "10.5555/ONCE"}') AS unknown;
SELECT kerai._worker_progress(:doi_item, 'found', '{"doi": "10.5555/once"}');
SELECT kerai._worker_deposit(:doi_item, E'# Once\n\nThe work itself.\n',
    '{"source_url": "https://example.org/once.pdf", "source_type": "pdf", "license": "cc-by", "metadata": {"doi": "10.5555/once", "arxiv": "2301.00001", "title": "Once"}}');
SELECT result->'keys' AS keys FROM kerai.crawl_queue WHERE id = :doi_item;
-- Deposited, not yet ingested: the URL reference waits for that deposit.
SELECT kerai._worker_known(:url_item, '{"url": "https://example.org/once.pdf"}') - 'item' AS waiting;
SELECT status, result ? 'same_as' AS same_as FROM kerai.crawl_queue WHERE id = :url_item;
-- A copy that is gone is not found (found and fetching may end so).
SELECT kerai._worker_progress(:arxiv_item, 'fetching', '{"source_url": "https://example.org/gone.pdf"}');
SELECT kerai._worker_fail(:arxiv_item, 'not_found', 'resource unreachable: https://example.org/gone.pdf (HTTP 404)') ->> 'to' AS gone;
-- The next cycle ingests the deposit and links the waiting reference to the same document.
SELECT jsonb_array_length(c->'ingested') AS ingested, jsonb_array_length(c->'linked') AS linked,
       c ? 'eligible' AND c ? 'retries_waiting' AS counts
  FROM kerai.crawl_cycle() c;
SELECT left(r.content, 36) AS reference, r.status, d.content AS document, e.metadata->>'reused' AS reused
  FROM kerai.references r JOIN kerai.reference_state rs ON rs.node_id = r.id
  LEFT JOIN kerai.nodes d ON d.id = r.resolved_doc
  LEFT JOIN kerai.edges e ON e.source_id = r.id AND e.relation = 'resolves_to'
 WHERE rs.first_seen_in = :'twice' ORDER BY r.content;
SELECT key FROM kerai.document_keys k JOIN kerai.nodes d ON d.id = k.document_id WHERE d.content = 'Once' ORDER BY key;
-- Ingested: a later reference to it is linked at once, by DOI or by URL.
SELECT kerai._known_document('{"doi": "https://doi.org/10.5555/Once"}') = kerai._known_document('{"url": "https://example.org/once.pdf/"}') AS same_document;
SELECT kerai._worker_known(999999, '{"doi": "10.5555/once"}');
-- Its keys name nothing once it is deleted by hand (its root node), so it is fetched again.
SAVEPOINT by_hand;
DELETE FROM kerai.nodes WHERE kind = 'document' AND content = 'Once';
SELECT kerai._known_document('{"doi": "10.5555/once"}') IS NULL AS forgotten;
ROLLBACK TO SAVEPOINT by_hand;
-- A new reference to a work in the corpus (here its arXiv id) is linked when the cycle would
-- claim it: no queue item, no fetch.
SELECT kerai.parse_markdown($md$# Thrice

The preprint arXiv:2301.00001 is the same work.
$md$, '{"source_url": "https://example.org/thrice"}') AS thrice \gset
SELECT jsonb_array_length(c->'linked') AS linked_at_claim, jsonb_array_length(c->'claimed') AS claimed
  FROM kerai.crawl_cycle() c;
SELECT r.status, d.content AS document FROM kerai.references r JOIN kerai.nodes d ON d.id = r.resolved_doc
 WHERE r.arxiv = '2301.00001';

-- A document's authors are known to the corpus (corpus_authors: a reference by them is less
-- novel) once the document has its title (parse_markdown records them).
SELECT kerai.parse_markdown($md$# Notes on quill pens

Text.
$md$, '{"source_url": "https://example.org/quill", "authors": ["Zebediah Quillfeather", {"family": "Inkwright"}]}') IS NOT NULL AS parsed;
SELECT author_key, documents FROM kerai.corpus_authors
 WHERE author_key IN (kerai.family_key('Zebediah Quillfeather'), kerai.family_key('Inkwright')) ORDER BY 1;

-- Unknown ids are errors that name them.
SELECT * FROM kerai.citation_chain('00000000-0000-4000-8000-00000000dead');
SELECT * FROM kerai.citation_chain(:'seed', -1);
SELECT kerai.node_entropy('00000000-0000-4000-8000-00000000dead');
ROLLBACK;
