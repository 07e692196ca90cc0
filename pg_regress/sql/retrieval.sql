-- The retrieval layer: chunks, the local embedding model, entities and claims, hybrid search,
-- answers with citations, the AI request log, raw HTML out of line.
\set VERBOSITY terse
\set ON_ERROR_ROLLBACK on
SET client_min_messages = warning;
BEGIN;

-- Chunks of a text, without writing anything: sections kept whole when they fit.
SELECT chunk_index, chunk_total, token_count, heading_path, chunk_strategy, left(content, 60) AS starts
  FROM kerai.chunk_text($md$# Field guide

## Sampling

Collect three samples from each site. Label every tube with the site code and the date.
Keep the samples cold until they reach the lab.

## Safety

Wear gloves. Report spills to the lab manager at once.
$md$, '{"target_tokens": 40, "overlap_tokens": 8}');
SELECT * FROM kerai.chunk_text('# x', '{"overlap_tokens": 300}');
SELECT * FROM kerai.chunk_text('# x', '{"strategy": "words"}');

-- A document, its chunks and their provenance.
SELECT (kerai.set_target('intranet', 'https://intranet.example.org/', '{"chunk_size": 64, "chunk_overlap": 8}')).name;
INSERT INTO kerai.pages (id, target_id, url, url_hash)
SELECT '00000000-0000-4000-8000-000000000001', id, 'https://intranet.example.org/lab', 'h1' FROM kerai.targets WHERE name = 'intranet';
INSERT INTO kerai.page_versions (id, page_id, content_hash, raw_html, scraped_at)
VALUES ('00000000-0000-4000-8000-0000000000a1', '00000000-0000-4000-8000-000000000001', 'v1', '<p>lab</p>', '2026-03-14 09:00+00');
SELECT kerai.parse_markdown($md$# The imaging lab

The Northwind Institute opened a new imaging lab on 12 March 2026. The lab houses a 7 tesla
scanner that cost £6.8 million. Dr. Henrik Aalto has been the Director since 2019.

## Booking

Researchers book scanner time through the facilities office. Sessions last 90 minutes and
start at 08:00, 10:00, 13:00 and 15:00. Write to imaging@northwind.example.org to ask.

## Safety

Nobody enters the scanner room with metal. Visitors are escorted by trained staff at all times.
$md$, '{"source_url": "https://intranet.example.org/lab", "target": "intranet", "language": "en",
        "page_version": "00000000-0000-4000-8000-0000000000a1", "crawl_timestamp": "2026-03-14T09:00:00Z",
        "tags": ["facilities"],
        "structured": {"json_ld": [{"@type": "Organization", "name": "Northwind Institute", "foundingDate": "1998"}]}}') AS doc1 \gset
SELECT r - 'document' AS summary FROM kerai.chunk_document(:'doc1') r;
SELECT chunk_index, chunk_total, token_count <= 64 AS fits, heading_path, source_url, title, language, tags,
       page_version_id IS NOT NULL AS has_version, target_id IS NOT NULL AS has_target, embedding_status
  FROM kerai.chunks ORDER BY chunk_index;
-- Ids are a hash of the source URL and the index (checked against an independent computation).
SELECT kerai.chunk_id('https://intranet.example.org/lab', 0) AS id0,
       bool_and(id = kerai.chunk_id(source_url, chunk_index)) AS all_deterministic FROM kerai.chunks;
-- Chunking again changes nothing.
SELECT r - 'document' - 'options' AS again FROM kerai.chunk_document(:'doc1') r;

-- Entities and claims were found in the chunks.
SELECT kind, text FROM kerai.entities WHERE kind IN ('organization', 'person', 'money', 'email', 'date')
 ORDER BY kind, text;
SELECT source, statement FROM kerai.claims ORDER BY source, statement;
SELECT kind, text, start_char, end_char FROM kerai.extract_entities('Write to Maya Patel at maya@example.org by 1 May 2026.');
SELECT statement, source FROM kerai.extract_claims('Acme Ltd was founded in 1990 and employs 40 people.',
       '[{"@type": "Organization", "name": "Acme Ltd", "numberOfEmployees": 40}]');

-- The local model: 384-dimensional unit vectors; related sentences are closer.
SELECT vector_dims(kerai.embed('How do I book the scanner?')) AS dims,
       round((kerai.embed('How do I book the scanner?') <=> kerai.embed('Researchers book scanner time'))::numeric, 1) < 0.5 AS related_close,
       round((kerai.embed('How do I book the scanner?') <=> kerai.embed('The weather in spring is mild'))::numeric, 1) > 0.7 AS unrelated_far;
-- A chunk that failed embedding_max_attempts times is left alone (kerai.retry_embeddings brings it back).
UPDATE kerai.chunks SET embedding_status = 'failed', embedding_attempts = 5 WHERE chunk_index = 0;
SELECT kerai.embed_pending(100) AS embedded_but_the_given_up;
SELECT kerai.retry_embeddings() AS retried;
SELECT kerai.embed_pending(100) AS embedded_after_retry;
SELECT chunks, embedded, pending, failed, embedding_provider, embedding_model FROM kerai.retrieval_overview;
SELECT count(*) AS vectors, min(dimensions), max(model_name) FROM kerai.embeddings;

-- Hybrid search: full text and vectors, fused by reciprocal rank; filters.
SELECT heading_path, fts_rank, vector_rank, url, version_date
  FROM kerai.search('how long is a scanner session', 2);
SELECT heading_path, fts_rank IS NULL AS no_fts FROM kerai.search('protective rules for visitors', 1, '{"mode": "vector"}');
SELECT heading_path FROM kerai.search('metal', 3, '{"mode": "fts"}');
SELECT count(*) FROM kerai.search('scanner', 5, '{"domain": "example.org", "language": "en", "url_prefix": "https://intranet.example.org/"}');
SELECT count(*) FROM kerai.search('scanner', 5, '{"domain": "other.org"}');
SELECT count(*) FROM kerai.search('scanner', 5, '{"target": "intranet", "since": "2026-03-01", "until": "2026-04-01"}');
SELECT count(*) FROM kerai.search('scanner', 5, '{"since": "2026-04-01"}');
SELECT * FROM kerai.search('', 5);
SELECT * FROM kerai.search('scanner', 0);
SELECT * FROM kerai.search('scanner', 5, '{"colour": "blue"}');
SELECT * FROM kerai.search('scanner', 5, '{"since": "last tuesday"}');
SELECT * FROM kerai.search('scanner', 5, '{"mode": "semantic"}');

-- Answers: extractive without a chat model; the request, response and citations are logged,
-- and the seed's full citation query works on them as written.
SELECT a->>'mode' AS mode, a->>'model' AS model, jsonb_array_length(a->'citations') AS cited,
       a->'citations'->0->>'url' AS first_source, (a->>'completion_tokens')::int > 0 AS counted
  FROM kerai.answer('How long does a scanner session last?', 2) a;
SELECT ar.query, cit.relevance_score, p.url AS source_url, pv.scraped_at AS version_date
  FROM kerai.ai_requests ar
  JOIN kerai.ai_responses resp ON ar.id = resp.request_id
  JOIN kerai.citations cit ON resp.id = cit.response_id
  JOIN kerai.chunks c ON cit.chunk_id = c.id
  JOIN kerai.page_versions pv ON c.page_version_id = pv.id
  JOIN kerai.pages p ON pv.page_id = p.id
 ORDER BY cit.citation_order;
SELECT citation_order, source_url, version_date, left(cited_text, 30) AS cited FROM kerai.answer_citations ORDER BY citation_order;
SELECT a->>'answer' AS answer FROM kerai.answer('How long does a scanner session last?', 2) a;
SELECT kerai._extractive_answer('What does the good regulator theorem say?',
       ARRAY['Conant and Ashby (1970). Every good regulator of a system must be a model of that system. Journal.',
             'Older ideas anticipated this loop. The good regulator theorem says that every good regulator of a system must be a model of that system.']);
SELECT kerai._extractive_answer('quantum chromodynamics', ARRAY['The lab opens at nine every morning.']) IS NULL AS no_answer;
-- A paper's title longer than 20 words, kept in chunk text as a plain line: known as the
-- passage's heading, it never answers.
SELECT kerai._extractive_answer('Is vitamin D status linked to cardiovascular events in older adults?',
         ARRAY[E'Vitamin D status and the risk of cardiovascular events in a cohort of older adults followed for ten years in three European countries and two cohorts\n\nIn older adults, a low level was linked to more heart attacks and strokes over the ten years.'],
         1,
         ARRAY['Vitamin D status and the risk of cardiovascular events in a cohort of older adults followed for ten years in three European countries and two cohorts']) AS answer;
SELECT a->>'answer' AS answer FROM kerai.answer('zyxwvut qqqq', 2, '{"mode": "fts"}') a;
SELECT kerai.answer('scanner', 2, '[]');

-- A new version of the page: changed chunks wait for new embeddings, unchanged keep theirs.
SELECT kerai.parse_markdown($md$# The imaging lab

The Northwind Institute opened a new imaging lab on 12 March 2026. The lab houses a 7 tesla
scanner that cost £6.8 million. Dr. Henrik Aalto has been the Director since 2019.

## Booking

Researchers book scanner time through the facilities office. Sessions now last 60 minutes.
$md$, '{"source_url": "https://intranet.example.org/lab", "target": "intranet"}') AS doc2 \gset
SELECT r - 'document' - 'options' AS new_version FROM kerai.chunk_document(:'doc2') r;
SELECT chunk_index, chunk_total, document_id = :'doc2' AS current, embedding_status,
       EXISTS (SELECT 1 FROM kerai.embeddings e WHERE e.chunk_id = c.id) AS has_vector
  FROM kerai.chunks c ORDER BY chunk_index;
-- The old document cannot take the chunks back, unless forced.
SELECT r->>'skipped' AS skipped FROM kerai.chunk_document(:'doc1') r;
-- What an old answer cited is kept as it was.
SELECT left(cited_text, 40) AS still_cited FROM kerai.citations ORDER BY citation_order LIMIT 1;

-- LLM claims: the prompt, a valid and an invalid model answer, the cost logged either way.
SELECT left(kerai.llm_claims_prompt('research', 'The lab opened in 2026.'), 60) AS prompt;
SELECT kerai.record_llm_claims(c.id, 'prompt', '[{"statement": "The lab opened in 2026", "subject": "the lab",
        "predicate": "opened in", "object": "2026", "confidence": 0.9}]', 'fake-model', 20, 10) - 'request' AS stored
  FROM kerai.chunks c WHERE chunk_index = 0;
SELECT kerai.record_llm_claims(c.id, 'prompt', '[{"statement": "x", "confidence": 7}]', 'fake-model', 20, 5) - 'request' AS refused
  FROM kerai.chunks c WHERE chunk_index = 0;
SELECT purpose, model, mode, tokens_used FROM kerai.ai_requests q JOIN kerai.ai_responses r ON r.request_id = q.id
 WHERE purpose = 'claims' ORDER BY r.id;
SELECT * FROM kerai.parse_llm_claims('not json');
SELECT kerai.extract_llm_claims(c.id) FROM kerai.chunks c WHERE chunk_index = 0;

-- Settings and providers: checked, named errors.
SELECT kerai.set_setting('chunk_tokens', '256');
SELECT kerai.set_setting('chunk_tokens', '-3');
SELECT kerai.set_setting('colour', '"blue"');
SELECT kerai.set_setting('embedding_provider', '"magic"');
SELECT kerai.configure_embeddings('openai', 'text-embedding-3-small');
SELECT kerai.configure_embeddings('local', 'other-model');
SELECT kerai.configure_embeddings('quantum');
SELECT kerai.configure_embeddings('none') ->> 'provider' AS provider;
SELECT kerai.embed('anything');
SELECT kerai.embed_pending();
SELECT kerai.configure_embeddings('local') ->> 'model' AS model;
SELECT kerai.configure_chat('http://127.0.0.1:9/v1', 'fake-model') ->> 'model' AS chat_model;
SELECT kerai.configure_chat('ftp://nowhere', 'x');
SELECT kerai.extract_llm_claims(c.id) FROM kerai.chunks c WHERE chunk_index = 0;
-- The SSRF guard: loopback endpoints need allowed_private_hosts; bad entries are refused.
SELECT kerai.set_setting('allowed_private_hosts', '["wiki.corp", "10.0.0.0/8", "[::1]:8080", "*.corp"]');
SELECT kerai.set_setting('allowed_private_hosts', '"wiki.corp"');
SELECT kerai.set_setting('allowed_private_hosts', '["10.0.0.0/40"]');
SELECT kerai.set_setting('allowed_private_hosts', '[5]');
SELECT kerai.reset_setting('allowed_private_hosts');
SELECT kerai.embed('');
SELECT kerai.embed('   ');
SELECT kerai.chunk_document('00000000-0000-4000-8000-00000000dead');
SELECT kerai._embed_store(NULL, 'sentence-transformers/all-MiniLM-L6-v2:int8', ARRAY[(SELECT id FROM kerai.chunks LIMIT 1)], ARRAY['[1,2,3]']);
SELECT kerai._embed_store(NULL, 'other-model', '{}', '{}');

-- Raw HTML over 1 MB is kept out of line, and read back transparently.
INSERT INTO kerai.page_versions (page_id, content_hash, raw_html)
VALUES ('00000000-0000-4000-8000-000000000001', 'big', '<html>' || repeat('x', 1100000) || '</html>');
SELECT raw_html IS NULL AS inline_cleared, raw_html_uri LIKE 'kerai-blob:sha256:%' AS has_uri,
       length(kerai.html(v)) AS html_length, kerai.html(v) LIKE '<html>xxx%</html>' AS same_html
  FROM kerai.page_versions v WHERE content_hash = 'big';
SELECT count(*) AS blobs FROM kerai.blobs;

-- The same text at two URLs: the chunks repeat, and search returns the text once.
SELECT kerai.configure_embeddings('local') ->> 'model' AS model;
SELECT u AS url, (kerai.chunk_document(kerai.parse_markdown($md$# Opening hours

The imaging lab opens at 08:00 and closes at 18:00 on weekdays. Scanner sessions outside these
hours need the approval of the lab manager.
$md$, jsonb_build_object('source_url', u)))->>'chunks')::integer AS chunks
  FROM unnest(ARRAY['https://intranet.example.org/hours', 'https://mirror.example.org/hours']) u;
SELECT kerai.embed_pending(100) > 0 AS embedded;
SELECT count(*) AS chunks, count(DISTINCT content_hash) AS texts FROM kerai.chunks WHERE content LIKE '%opens at 08:00%';
SELECT count(*) AS hits, count(DISTINCT content) AS texts
  FROM kerai.search('when does the lab open on weekdays', 10) WHERE content LIKE '%opens at 08:00%';
SELECT count(*) AS hits, count(DISTINCT content) AS texts
  FROM kerai.search('lab opens weekdays', 10, '{"mode": "fts"}') WHERE content LIKE '%opens at 08:00%';
-- With few candidates, the repeated text still leaves room for k distinct texts.
SELECT kerai.set_setting('search_candidates', '1') IS NOT NULL AS few_candidates;
SELECT count(*) AS hits, count(DISTINCT content) AS texts FROM kerai.search('lab opens weekdays', 2, '{"mode": "fts"}');

-- Full-text scores: kerai._fts_score reads a chunk's lexemes once and gives, to the bit, the
-- IDF-weighted sum of ts_rank per lexeme it replaces (absent lexemes add nothing).
SELECT count(*) > 0 AS chunks,
       count(*) FILTER (WHERE kerai._fts_score(c.fts, q.l, q.w) IS DISTINCT FROM
                              (SELECT sum(x.w * ts_rank(c.fts, quote_literal(x.l)::tsquery, 1)) FROM unnest(q.l, q.w) x(l, w))) AS differ
  FROM kerai.chunks c,
       (SELECT ARRAY['lab', 'open', 'weekday', 'scanner', 'hour', 'absentword'] AS l,
               ARRAY[2.5, 1.0, 0.5, 3.0, 0.75, 9.0]::float8[] AS w) q;
SELECT kerai._fts_score(''::tsvector, '{lab}', '{1}') AS empty_vector,
       kerai._fts_score(strip(v), '{lab,open}', '{2,1}') = (SELECT sum(x.w * ts_rank(strip(v), x.l::tsquery, 1))
                                                             FROM unnest('{lab,open}'::text[], '{2,1}'::float8[]) x(l, w)) AS stripped_same
  FROM to_tsvector('english', 'The lab opens; the lab closes.') v;
SELECT kerai._fts_score('lab:1'::tsvector, '{lab,open}', '{1}');
-- The lexemes' frequencies come from the column statistics (ANALYZE): a rare lexeme weighs more.
ANALYZE kerai.chunks;
SELECT f[1] > f[2] AS listed_lexeme_more_frequent, f[2] > 0 AS unlisted_lexeme_rarer_but_present, cardinality(f) AS n
  FROM kerai._lexeme_frequencies('kerai.chunks'::regclass, 'fts', '{lab,absentword}') f;
SELECT count(*) AS lexemes, count(df) AS with_df,
       max(idf) FILTER (WHERE lexeme = 'absentword') > max(idf) FILTER (WHERE lexeme = 'lab') AS rare_weighs_more
  FROM kerai._fts_terms('lab absentword');
-- On one server kerai.refresh_search_statistics runs ANALYZE; merged statistics (what it
-- writes on a distributed database) take the place of ANALYZE's when there are some: 100 rows,
-- "lab" in half of them, any other word in 1 %.
SELECT kerai.refresh_search_statistics(true);
INSERT INTO kerai.search_statistics (row_count, lexemes, frequencies, unlisted, shards)
VALUES (100, '{lab,open}', '{0.5,0.2}', 0.01, 4);
SELECT lexeme, round(df) AS df, round(idf::numeric, 4) AS idf FROM kerai._fts_terms('lab absentword') ORDER BY lexeme;
SELECT count(*) AS statistics_rows FROM kerai.search_statistics;
SELECT kerai.refresh_search_statistics() ->> 'distributed' AS distributed;
SELECT count(*) AS statistics_rows_after FROM kerai.search_statistics;
-- When the rarest word alone matches more than search_fts_budget chunks, a candidate must
-- hold it and one of the next rarest (a hyphenated word's parts do not count); when too few
-- chunks hold two, those holding the rarest are ranked.
SELECT (kerai.chunk_document(kerai.parse_markdown(t, jsonb_build_object('source_url', u)))->>'chunks')::integer AS chunks
  FROM (VALUES ('The zebrafish aquarium is cleaned on Mondays by the N-terminal team.', 'https://intranet.example.org/fish/1'),
               ('The zebrafish aquarium is refilled on Tuesdays by the N-terminal team.', 'https://intranet.example.org/fish/2'),
               ('Procurement forms for terminal N go to the finance office before Mondays.', 'https://intranet.example.org/forms/1'),
               ('Procurement forms go to the finance office after Tuesdays.', 'https://intranet.example.org/forms/2')) x(t, u);
ANALYZE kerai.chunks;
SELECT kerai.set_setting('search_fts_budget', '1') IS NOT NULL AS budget_of_one;
SELECT lexeme, round(df) AS df, candidate, required FROM kerai._fts_terms('zebrafish aquarium') ORDER BY df, lexeme;
SELECT lexeme, round(df) AS df, candidate, required FROM kerai._fts_terms('N-terminal') ORDER BY df, lexeme;
SELECT lexeme, round(df) AS df, candidate, required FROM kerai._fts_terms('N-terminal procurement') ORDER BY df, lexeme;
SELECT content FROM kerai.search('zebrafish aquarium', 5, '{"mode": "fts"}') ORDER BY content;
SELECT content FROM kerai.search('N-terminal procurement', 5, '{"mode": "fts"}') ORDER BY content;
SELECT kerai.reset_setting('search_fts_budget') IS NOT NULL AS budget_reset;
SELECT content FROM kerai.search('N-terminal procurement', 5, '{"mode": "fts"}') ORDER BY content;

-- The local model's two variants: int8 (the default) and float32 (the reference). Each has its
-- own name and index; switching sends every chunk back to be embedded; the same text's vectors
-- agree (cosine at least 0.99).
SELECT kerai.setting('embedding_model') #>> '{}' AS default_model;
CREATE TEMP TABLE int8_vector AS SELECT kerai.embed('Book trains two weeks ahead of the trip.') AS v;
SELECT kerai.configure_embeddings('local', 'sentence-transformers/all-MiniLM-L6-v2') ->> 'model' AS model;
SELECT count(*) FILTER (WHERE embedding_status <> 'pending') AS not_pending FROM kerai.chunks;
SELECT 1 - (kerai.embed('Book trains two weeks ahead of the trip.') <=> v) >= 0.99 AS variants_agree,
       kerai.embed('Book trains two weeks ahead of the trip.') <> v AS not_the_same_vector
  FROM int8_vector;
SELECT kerai.embed_pending(3) AS embedded_float32;
SELECT model_name, count(*) FROM kerai.embeddings
 WHERE model_name LIKE 'sentence-transformers/%' GROUP BY 1 ORDER BY 1;
SELECT count(*) AS variant_indexes FROM pg_indexes
 WHERE schemaname = 'kerai' AND indexdef LIKE '%sentence-transformers/all-MiniLM-L6-v2%';
SELECT kerai.configure_embeddings('local') ->> 'model' AS model;

ROLLBACK;
