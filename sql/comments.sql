-- The description of every public function of schema kerai (COMMENT ON FUNCTION): what `\df+`
-- and docs/reference/sql.md show. Tables and views are described beside their CREATE.

-- ----- site crawl

COMMENT ON FUNCTION kerai.set_target(text, text, jsonb, text) IS
    'Creates or changes a site-crawl target and returns its `kerai.targets` row; a changed base URL or config '
    'increments `config_version` and records the new version in `kerai.target_config_versions` (`changed_by` '
    'defaults to `current_user`). From SQL the config is stored as given (the CLI stores it complete). '
    'Errors `22023`: config not a JSON object, base URL not http(s); a name that is not a word fails the '
    'check `targets_name_is_a_word` (`23514`). Requires `kerai_editor`.';

COMMENT ON FUNCTION kerai.enqueue_job(text, text, jsonb, text, text) IS
    'Queues a crawl of a target (name or id), notifies channel `kerai_jobs` with `{job, target}` and returns the '
    'job id. At most one `PENDING` job per target: asking again returns the waiting one; while a job is `RUNNING`, '
    '`if_running => ''refuse''` raises `55006` naming it and `''queue''` (the default) queues behind it. '
    'Errors `22023`: unknown target, `if_running` other than `refuse` or `queue`; a `mode` other than '
    '`incremental`, `full`, `since`, `url`, `retry` or `dry_run` fails a check (`23514`). Requires `kerai_editor`.';

COMMENT ON FUNCTION kerai.set_target_active(text, boolean) IS
    'Disables (false) or enables (true) a target: a disabled target''s pg_cron schedule queues nothing '
    '(`SCHEDULE_SKIPPED` logged), no worker or daemon starts its jobs, and `enqueue_job` refuses it (`55000`). '
    'Disabling cancels its queued jobs; a running one goes on until it ends or is cancelled. Returns whether '
    'the target was active before. Needs `kerai_editor`.';
COMMENT ON FUNCTION kerai.delete_target(text, boolean) IS
    'Deletes a target with its pages, versions, jobs, job logs and config history; its documents (nodes, chunks, '
    'vectors) stay in the corpus unless `keep_documents` is false (needs `kerai_admin`; then the edges into them '
    'go too, and a document that a page of another target holds stays). Refused (`55006`) while '
    'a job of the target runs. Returns `{target, pages, versions, jobs, documents, documents_kept}`. Needs '
    '`kerai_editor`.';
COMMENT ON FUNCTION kerai.delete_document(uuid) IS
    'Deletes one document (or reference, or concept) with its nodes, edges, passages, vectors, entities, claims, '
    'keys and frontier rows, and the links into it (edges, resolved references, page versions); the references it '
    'cited are counted again. True when it was there. Needs `kerai_admin`.';
COMMENT ON FUNCTION kerai.distribute() IS
    'On a Citus coordinator with its workers added, lays the database out as `kerai.distribution_plan` says: '
    'reference tables, and distributed tables co-located by document, target, request and key, rows and all, in '
    'one transaction. Idempotent: `{reference_tables, distributed_tables, foreign_keys, already_distributed}`. '
    'Refused (`0A000`) without Citus. It also sets `citus.skip_advisory_lock_permission_checks` for the database '
    '(so that the fetcher may write rows that reference the reference tables it only reads) and makes '
    '`kerai._near_duplicate` run as its caller. Needs `kerai_admin` (and the tables'' owner). See docs/scale-out.md.';
COMMENT ON FUNCTION kerai.cancel_job(uuid) IS
    'Cancels a `PENDING` or `RUNNING` job: status `CANCELLED`, its pending and leased URLs skipped with '
    '`error_kind` `cancelled`, `CRAWL_CANCELLED` logged; its fetcher stops at its next heartbeat. Returns the '
    'job''s status afterwards (a job that had already finished keeps, and returns, its own). Error `22023` for '
    'an unknown job. Requires `kerai_editor`.';

COMMENT ON FUNCTION kerai.job_metrics(uuid) IS
    'The metrics of a crawl job, computed now from its URLs and logs: `{duration_sec, pages_crawled, '
    'items_processed, docs_discovered, docs_processed, new_count, updated_count, unchanged_count, '
    'duplicate_count, near_duplicate_count, error_count, skipped_count, remaining, warning_count, '
    'throughput_items_per_min, subtotals, left_out}`, `subtotals` mapping each source type to `{new, updated, '
    'unchanged, duplicate, failed, skipped, total}`; `duplicate_count`: URLs stored as aliases of another page, '
    '`near_duplicate_count`: new versions flagged near-duplicates. NULL for an unknown job. A finished job '
    'keeps them in `scrape_jobs.metrics`; view `kerai.job_summary` computes them live for unfinished jobs.';

COMMENT ON FUNCTION kerai.robots_allowed(text, text, text) IS
    'True when `user_agent` may fetch `url` under the given robots.txt text, with Google''s semantics '
    '(RFC 9309 and Google''s extensions). A full User-Agent header (one with a `/`) is reduced to its '
    'product token (`kerai/0.1 (...)` is matched as `kerai`); a bare name is matched as it is (`Foo Bar` is '
    'not a valid agent name, so only the `*` group applies).';

COMMENT ON FUNCTION kerai.normalize_url(text) IS
    'kerai''s normal form of a URL: lower-case scheme and host, no default port, no fragment, dot segments '
    'resolved, query sorted, tracking parameters removed. NULL for anything but an absolute http(s) URL. '
    'Pages, document keys and reference deduplication compare URLs in this form.';

COMMENT ON FUNCTION kerai.url_hash(text) IS
    'Hex SHA-256 of the URL''s normal form (`kerai.normalize_url`), as kept in `pages.url_hash` and '
    '`job_urls.url_hash`; NULL when the URL is not an absolute http(s) URL.';

COMMENT ON FUNCTION kerai.html(kerai.page_versions) IS
    'The raw HTML of a page version wherever it is kept: `page_versions.raw_html`, or for HTML over 1 MB the '
    '`kerai.blobs` row of its target its `raw_html_uri` names (`kerai-blob:sha256:<hex>`). Call it as `kerai.html(v)`, or '
    '`v.html` with kerai on the search_path; NULL when the version kept no HTML.';

-- ----- convert

COMMENT ON FUNCTION kerai.html(anyelement) IS
    'kerai.html(v) for a row of a table shaped as kerai.page_versions: on Citus, the rows of its shards. '
    'Raises an error naming the type for any other value.';

COMMENT ON FUNCTION kerai.html_to_markdown(text, text) IS
    'The page''s main content as markdown: navigation, headers, footers, sidebars, banners, ads, share bars and '
    'comments removed; the title as a level-1 heading, then headings, nested lists, GFM tables, fenced code and '
    'quotes, links made absolute against `url` (optional). Nothing is written.';

COMMENT ON FUNCTION kerai.extract_structured(text) IS
    'The structured data of an HTML page: `{json_ld, json_ld_errors, open_graph, twitter, meta, canonical, '
    'hreflang, title, lang}`. JSON-LD `@graph` lists and top-level arrays are flattened into `json_ld`; a block '
    'that cannot be read even after repairs is reported in `json_ld_errors` instead of raising an error.';

COMMENT ON FUNCTION kerai.detect_language(text) IS
    'Up to three candidate languages of the text, best first, as rows `(lang, confidence)`: ISO 639-1 codes '
    'among en de fr es it pt nl ru zh ja pl sv tr ar ko cs, confidences in 0..1. No rows for a text without '
    'letters.';

COMMENT ON FUNCTION kerai.source_records(text, text, jsonb) IS
    'The page as clean text records with provenance (seed 002''s S0 records): `{records: [{text, provenance: '
    '{institution, url, section, anchor, fetched_at}, meta: {language, charset, hints, error}}], counters, '
    'samples, quarantined}`. Options, all optional: `institution` (default the URL''s host), `fetched_at`, '
    '`target_language`, `min_language_probability`, `short_text_words`, `languages`, `min_chars`, `max_chars`, '
    '`whitelist`, `dedup_threshold`, `include_sidebars`, `drop_admin_items`, `samples_per_institution`; unknown '
    'ones are ignored. Error `22023` when `options` is not a JSON object or a field has the wrong type.';

COMMENT ON FUNCTION kerai.count_tokens(text) IS
    'The number of tokens in the text under cl100k, the tokenizer of OpenAI''s embedding and chat models (not '
    'characters / 4). Chunk sizes and the token counts logged for answers are counted with it.';

-- ----- graph

COMMENT ON FUNCTION kerai.parse_markdown(text, jsonb) IS
    'Parses CommonMark + GFM into a `document` node with `section`, `heading`, `paragraph`, `list`, '
    '`list_item`, `code`, `table`, `blockquote`, `footnote` and `html` nodes below it (written in batches of '
    '5,000 rows; nodes under a heading carry `metadata.heading_path`) and returns the document''s id. The '
    'document''s content is `metadata.title`, else its first level-1 heading (else its first heading), and its '
    'metadata gains `content_hash`, `content_length`, `node_count` (and `front_matter`). The same content from '
    'the same `source_url` returns the existing document; a new one is queued in `kerai.extraction_queue` for '
    'reference extraction. Error `22023` when `metadata` is not a JSON object.';

COMMENT ON FUNCTION kerai.parse_markdown(bytea, jsonb) IS
    '`kerai.parse_markdown` for markdown that arrives as bytes (`pg_read_binary_file`, a client''s raw upload); '
    'returns the document''s id. The bytes must be UTF-8 without NUL bytes, else error `22021` naming the input '
    '(`the markdown of <source_url>`) and the byte offset, with nothing written.';

COMMENT ON FUNCTION kerai.uuid7() IS
    'A new time-ordered UUID (version 7), the default id of nodes and edges: inserts append to the primary-key '
    'index and ids sort by creation.';

COMMENT ON FUNCTION kerai.version() IS
    'The version of the kerai library the server loaded (for example `0.3.0`); `kerai.build_info()` says '
    'which build it is.';

COMMENT ON FUNCTION kerai.build_info() IS
    'How the loaded kerai library was built: `{version, build, api_version}`, where `build` is `release` '
    '(optimised; what `make install` builds) or `debug` (quick to build and several times slower; what '
    '`make demo` and the tests use), and `api_version` is the version of the fetcher''s API.';

-- ----- citations and references

COMMENT ON FUNCTION kerai.detect_citations(text) IS
    'Every citation in running text as rows `(kind, start_char, end_char, text, detail)`, sorted and '
    'non-overlapping; offsets count characters as `substr` does, end exclusive. `kind` is `url` (`detail` '
    '`{url}`), `doi` (`{doi}` in lower case, `url` when it came from a link), `arxiv` (`{arxiv, version, url}`), '
    '`author_year` (one row per callout group: `{items: [{authors, et_al, year, suffix, key}], narrative}`) or '
    '`concept` (quoted terms and acronym definitions: `{term, acronym}`).';

COMMENT ON FUNCTION kerai.parse_reference(text) IS
    'One bibliography entry as fields: `{authors, editors, year, year_suffix, title, container, volume, issue, '
    'pages, publisher, location, doi, url, arxiv, isbn}`, people as `[{family, given}]`, null for what the entry '
    'does not say; `same_authors_as_before: true` when it opens with a run of dashes standing for the authors '
    'of the entry before it.';

COMMENT ON FUNCTION kerai.split_bibliography(text) IS
    'A references section (numbered or not; one entry per line, per paragraph, or wrapped over lines) split '
    'into one entry per row, end-of-line hyphenation undone. `kerai.extract_references` runs it on the items '
    'under a References-like heading.';

COMMENT ON FUNCTION kerai.author_year_key(text, integer, text) IS
    'The key an in-text author-year callout and a bibliography entry share: family key, year and suffix joined '
    'by `|` (`friston|2010|`, `bell|2002|a`). NULL without a family name or a year; not strict, so a NULL suffix '
    'is fine.';

COMMENT ON FUNCTION kerai.normalize_title(text) IS
    'A title as title matching compares it: lower case, diacritics folded, punctuation removed, single spaces '
    '(`The Free-Energy Principle` becomes `the free energy principle`). Reference deduplication and topic '
    'novelty compare such titles by trigram similarity.';

COMMENT ON FUNCTION kerai.family_key(text) IS
    'A person''s family name as a lower-case key (`Friston, K. J.` becomes `friston`), for author-year keys, '
    'the first authors of references and `kerai.corpus_authors`.';

COMMENT ON FUNCTION kerai.extract_references(uuid) IS
    'Turns a document''s citations into deduplicated reference nodes (each with a `kerai.reference_state` row) '
    'and `cites` edges: entries under a References-like heading become `bibliography` references; citations in '
    'paragraphs, list items, headings, tables and footnotes become `url`, `doi`, `arxiv`, `author_year` or '
    '`concept` references, a callout linking to its bibliography entry when their keys match. One `cites` edge '
    'per (citing node, reference); the references are rescored and the document leaves `kerai.extraction_queue`. '
    'Returns `{document, bibliography_entries, citations, references, new_cites_edges}`. Error `22023` when '
    '`doc` is not a document; `P0001` when concurrent writers kept colliding (run it again).';

-- ----- frontier

COMMENT ON FUNCTION kerai.score_reference(uuid) IS
    'The expected-free-energy score of a reference, computed now from its current inputs '
    '(`kerai.score_terms(ref)->''score''`); the stored `reference_state.score` is kept separately and '
    '`kerai.crawl_cycle` refreshes stale ones. Error `22023` for an unknown reference.';

COMMENT ON FUNCTION kerai.score_terms(uuid) IS
    'Every term of a reference''s score, computed now: `{score, frequency, entropy, novelty, author_novelty, '
    'topic_novelty, depth, demand, epistemic, pragmatic, epistemic_weight, pragmatic_weight}`, where score = '
    'epistemic_weight * (0.4 frequency + 0.3 entropy + 0.2 novelty) + pragmatic_weight * (0.1 depth + 0.2 '
    'demand), the weights from the `kerai_crawl` agent''s config (1.0 and 0.5 by default). Error `22023` for an '
    'unknown reference.';

COMMENT ON FUNCTION kerai.node_entropy(uuid) IS
    'The mean uncertainty, in bits (0..1), over the references a node cites, about whether the work each names '
    'is known to the corpus: resolved 0; open (unresolved, in progress, failed awaiting a retry) 1; closed '
    'without content (`not_found`, `skipped`, failed with no retry left) 0.2864. 0 for a node that cites '
    'nothing. Error `22023` naming an unknown node.';

COMMENT ON FUNCTION kerai.frontier(integer) IS
    'The best `unresolved` references by stored score (NULL scores last), at most `"limit"` (default 20), as '
    'rows `(ref, content, ref_type, score, cite_count, chain_depth, frequency, entropy, novelty, depth, demand)`, '
    'the terms from `reference_state.score_terms`. Failed references waiting for a retry are not listed.';

COMMENT ON FUNCTION kerai.transition(uuid, text, jsonb) IS
    'Moves a reference to another state along `kerai.reference_moves`, logs the move in '
    '`kerai.reference_transitions`, notifies `kerai_progress` and returns `{ref, from, to}` merged with `info`. '
    'To `failed`: `retries` + 1 and the next try after `retry_base_seconds` * 2^(retries - 1), or none '
    '(`dead: true`) once `max_retries` is reached, both from the config of agent `info.agent` (default '
    '`kerai_crawl`); to `unresolved`: retries reset. Errors `22023`: unknown reference, unknown state, illegal '
    'move (the hint lists the legal ones).';

COMMENT ON FUNCTION kerai.retry_reference(uuid) IS
    'Gives a failed (dead or waiting), skipped or not-found reference another chance: '
    '`kerai.transition(ref, ''unresolved'')`, which resets its retries and last error; returns what '
    '`transition` returns. Error `22023` for an unknown reference or one in any other state (an illegal move).';

COMMENT ON FUNCTION kerai.crawl_cycle(text) IS
    'One cycle of the citation crawl for an agent (default `kerai_crawl`): extracts references from queued '
    'documents, ingests (or links) what the fetcher deposited, rescores up to 5,000 stale references, skips '
    'references at `max_chain_depth`, and claims the best eligible references (`claims_per_cycle` per '
    '`rate_limit_seconds`) into `kerai.crawl_queue` with `pg_notify(''kerai_crawl'')`, or links them at once to '
    'a document already in the corpus. Returns `{extracted, ingested, linked, ingest_failures, rescored, '
    'skipped_too_deep, claimed, frontier, pending, deposited, eligible, retries_waiting}`; a deposit that fails '
    'to ingest fails alone, and cycles may run concurrently. Requires `kerai_fetcher`; error `22023` for an '
    'unregistered agent.';

COMMENT ON FUNCTION kerai.citation_chain(uuid, integer) IS
    'The documents reached from the `seed` document along `cites` -> `resolves_to` edges, breadth first, each '
    'once at its shallowest depth up to `max_depth` (default 5), as rows `(document, title, depth, '
    'parent_document, via_reference)`; the seed itself is depth 0. Error `22023` when `seed` is not a document '
    'or `max_depth` is negative or NULL.';

-- ----- agents

COMMENT ON FUNCTION kerai.register_agent(text, text, text, jsonb) IS
    'Creates an agent, or updates the one with that name (its kind and parent replaced, `config` merged into '
    'the stored config), and returns its id; `parent` is an agent name or id. A new crawler agent (`kind` '
    '`crawler`, `config.type` `crawler`, or the name `kerai_crawl`) starts from `kerai.crawler_defaults()`. '
    'Errors `22023`: empty name, config not a JSON object, unknown parent.';

COMMENT ON FUNCTION kerai.crawler_defaults() IS
    'The config every crawler agent starts from: `{"type": "crawler", "rate_limit_seconds": 60, '
    '"max_chain_depth": 5, "min_score": 0.5, "max_pdf_mb": 50, "allowed_licenses": ["cc-by", "cc-by-sa", '
    '"cc-by-nc", "public-domain", "OA"], "epistemic_weight": 1.0, "pragmatic_weight": 0.5, "max_retries": 5, '
    '"retry_base_seconds": 60}`. `kerai.crawl_cycle` reads an agent''s config over these.';

COMMENT ON FUNCTION kerai.mint_reward(text, text, uuid, jsonb) IS
    'Records in `kerai.reward_ledger` the reward `kerai.reward_schedule` sets for `work_type`, earned by the '
    'agent (name or id) for a node, and returns the amount in nKoi (1 Koi = 10^9 nKoi). Errors `22023`: unknown '
    'agent, work type without a reward.';

COMMENT ON FUNCTION kerai.write_perspective(text, uuid, double precision, text) IS
    'Upserts what an agent (name or id) thinks of a node: a `weight` in [-1, 1] (1 highly relevant, 0 neutral, '
    '-1 a dead end) and a `note` (NULL keeps the previous one); returns nothing. Perspective weights on citing '
    'nodes are the `demand` term of reference scores, but writing one does not mark scores stale. Errors '
    '`22023`: unknown agent or node, weight NULL or outside [-1, 1].';

-- ----- retrieval

COMMENT ON FUNCTION kerai.chunk_document(uuid, jsonb) IS
    'Cuts a document''s blocks into token-aware chunks and upserts them into `kerai.chunks` under ids '
    '`kerai.chunk_id(source_url, index)`, so a new version of a page replaces its chunks in place: unchanged '
    'chunks keep their embedding, entities and LLM claims, changed ones lose them and wait for a new embedding, '
    'chunks past the new count are deleted; entities are found in new and changed chunks and the document''s '
    'rule-based claims rebuilt. Options `target_tokens`, `overlap_tokens`, `strategy` (`section`, `paragraph`, '
    '`length`) and `force` override the document''s target and the settings; a document older than the one '
    'holding the chunks is left alone (`{document, skipped, newer}`) unless `force`. Returns `{document, chunks, '
    'new, changed, unchanged, removed, entities, claims, options}`; error `22023` for an unknown document or '
    'bad options (`target_tokens` at least 16, `overlap_tokens` at most half of it).';

COMMENT ON FUNCTION kerai.chunk_id(text, integer) IS
    'The deterministic id of chunk `chunk_index` of the document at `source_url`: a name-based UUID '
    '(version 8, SHA-256 in the URL namespace of `source_url#index`), for upserts into stores outside Postgres. '
    'Error `22023` for a negative `chunk_index`.';

COMMENT ON FUNCTION kerai.chunk_pending(integer) IS
    'Chunks up to `max` (default 100) documents that have no chunks yet (made by `kerai.parse_markdown` alone, '
    'or before chunking was on), skipping documents without blocks and documents replaced by a newer one from '
    'the same `source_url`; returns how many it chunked.';

COMMENT ON FUNCTION kerai.chunk_text(text, jsonb) IS
    'The chunks `kerai.chunk_document` would make of a markdown text, nothing written: rows `(chunk_index, '
    'chunk_total, content, token_count, heading_path, chunk_strategy, content_hash)`. Options: `target_tokens` '
    '(512, at least 16), `overlap_tokens` (64, at most half the target), `strategy` (`section`, `paragraph` or '
    '`length`). Error `22023` for bad options.';

COMMENT ON FUNCTION kerai.embed(text) IS
    'The text''s embedding (a pgvector `vector`) from the configured provider: the local all-MiniLM-L6-v2 model '
    '(in the variant `embedding_model` names, loaded once per database session) or the OpenAI-compatible endpoint, its key read from the server''s '
    'environment variable `embedding_api_key_env` names. Errors: `22023` for empty or blank text, provider '
    '`none`, provider `openai` without a base URL, or an answer of the wrong size; `58P01` when the local model '
    'files are missing (the hint names `scripts/install-model.sh`); `08006` when the endpoint is unreachable, '
    'answers with an HTTP error or is slower than `embedding_timeout_seconds`.';

COMMENT ON FUNCTION kerai.embed_pending(integer) IS
    'Embeds up to `max` (default 64) chunks waiting for an embedding (pending, or failed fewer than `embedding_max_attempts` times with their '
    'next try due) with the local model, in this transaction, and returns how many it stored: for databases without a '
    'fetcher (pg_cron can call it). Error `22023` when `embedding_provider` is not `local` (the fetcher''s '
    '`kerai embed` serves every provider); `58P01` when the model files are missing.';

COMMENT ON FUNCTION kerai.retry_embeddings() IS
    'Sends every chunk whose embedding failed back to `pending`, its attempts reset; returns how many.';

COMMENT ON FUNCTION kerai.configure_embeddings(text, text, integer, text, text) IS
    'Chooses the embedding provider: `local` (all-MiniLM-L6-v2, 384 dimensions: `model` '
    '`sentence-transformers/all-MiniLM-L6-v2:int8`, the default, with 8-bit integer linear layers, or '
    '`sentence-transformers/all-MiniLM-L6-v2`, float32 throughout), '
    '`openai` (an OpenAI-compatible endpoint: needs `model`, `dimensions` and `base_url`; `api_key_env` names '
    'the server''s environment variable holding the key) or `none` (embeddings off). Creates the model''s HNSW '
    'index, and a new model or size sends every chunk back to `pending` (old vectors serve until replaced). '
    'Returns `{provider, model, dimensions, base_url, api_key_env, batch, timeout_seconds, max_attempts}`. '
    'Errors `22023`: unknown provider, a model for `local` other than its two variants, `openai` without model, dimensions or base '
    'URL, a base URL that is not http(s) or holds credentials; requires `kerai_admin`.';

COMMENT ON FUNCTION kerai.create_embedding_index(text, integer) IS
    'Creates, unless it exists, the HNSW cosine index over one model''s vectors in `kerai.embeddings` (partial on '
    '`model_name`, over `embedding::vector(dims)`) and returns its name, `embeddings_hnsw_<md5 prefix>_<dims>`; '
    '`kerai.configure_embeddings` calls it. Error `22023` for `dims` outside 1 to 2000. Requires `kerai_admin` '
    '(the index is built as the extension''s owner).';

COMMENT ON FUNCTION kerai.configure_chat(text, text, text) IS
    'Sets the OpenAI-compatible chat endpoint `kerai.answer` and LLM claims use: `base_url`, `model`, and '
    'optionally `api_key_env`, the server''s environment variable holding the key; a NULL `base_url` turns chat '
    'off (answers become extractive). Returns `{base_url, model, api_key_env, timeout_seconds}`. Error `22023` '
    'for a base URL that is not http(s) or holds credentials; requires `kerai_admin`.';

COMMENT ON FUNCTION kerai.refresh_search_statistics(boolean) IS
    'The full-text statistics `kerai.search` weighs query words by. On a distributed database (docs/scale-out.md) '
    'each shard of `kerai.chunks` keeps its own: this reads them from every shard (analyzing first those that '
    'grew, or all with `analyze_all`) and merges them into `kerai.search_statistics`; `kerai.crawl_cycle` does '
    'so at most once a minute. On one server it runs `ANALYZE kerai.chunks` when `analyze_all` is true. Returns '
    '`{distributed, analyzed, shards, rows, lexemes}`. Error `55000` when a shard cannot be read (a worker is down).';

COMMENT ON FUNCTION kerai.search(text, integer, jsonb) IS
    'Hybrid search over the chunks the caller may read: full text (an IDF-weighted sum of `ts_rank` per query '
    'lexeme, candidates selected by the rarest lexemes within `search_fts_budget`, or, when even the rarest is over '
    'it, by the rarest together with one of the next rarest) and vectors (HNSW, cosine), '
    'each over its best `search_candidates` (at least 2 x `k`) chunks, fused by reciprocal rank: score = sum of 1 / '
    '(`search_rrf_k` + rank). The same text (chunks with one content hash, as on two URLs of one page) is '
    'returned once, at its best rank. Returns the best `k` (default 10) as rows `(chunk_id, content, score, fts_rank, '
    'vector_rank, url, title, heading_path, version_date, document_id)`. Filters: `target`, `domain`, '
    '`url_prefix`, `language`, `source_type`, `document`, `since`, `until`, `mode` (`hybrid`, `fts`, `vector`), '
    '`query_embedding`; without a query vector it searches full text alone. Errors `22023`: empty query, `k` '
    'outside 1 to 1000, unknown filter or mode, bad date or document id, unknown target, a query vector of the '
    'wrong size; every kerai role may call it (`kerai_reader`).';

COMMENT ON FUNCTION kerai.answer(text, integer, jsonb) IS
    'Answers a question from the corpus: the best `k` passages of `kerai.search` (default `answer_passages`, 5; '
    'filters as there), then the chat model''s answer when `chat_base_url` is set, else up to three sentences of '
    'those passages, each followed by its passage number `[n]`. Logs the request, the response with its token '
    'counts and the citations (`kerai.ai_requests`, `ai_responses`, `citations`) and returns `{request, answer, '
    'mode, model, prompt_tokens, completion_tokens, citations: [{order, chunk_id, url, version_date, text, '
    'relevance}]}`: the passages the answer cites, numbered as in its text (all of them when it cites none), '
    'each `text` a clean span of its passage: the paragraphs that gave the answer''s sentences, else its '
    'paragraphs and list items, without headings, navigation, tables or reference-list entries (the passage '
    'as it is when it has none of those). '
    'Errors as `kerai.search`, and `08006` when the chat endpoint fails; every kerai role may call '
    'it (`kerai_reader`).';

COMMENT ON FUNCTION kerai.extract_entities(text) IS
    'Named entities found by rules (no model) as rows `(kind, text, start_char, end_char, confidence)`: `kind` '
    'is `organization`, `person`, `product`, `location`, `date`, `money`, `number`, `email`, `url` or `other`, '
    'offsets count characters, confidence in 0..1. `kerai.chunk_document` stores them per chunk in '
    '`kerai.entities`.';

COMMENT ON FUNCTION kerai.extract_claims(text, jsonb) IS
    'Claims found without a language model, as rows `(statement, subject, predicate, object, confidence, '
    'source)`: from schema.org JSON-LD in `json_ld` (an object, an array or a `@graph`; the `json_ld` array of '
    '`kerai.extract_structured` fits; source `json_ld`: founding date, founders, employees, address, job titles, '
    'authors, prices, ...) and from sentence patterns in `text` (source `pattern`: founded, employs, based in, '
    'opened, received, roles, leads, costs, named after, budget). A statement found twice is returned once; '
    'either argument may be NULL.';

COMMENT ON FUNCTION kerai.llm_claims_prompt(text, text) IS
    'The claim-extraction prompt of seed 000, word for word, for `chunk_text` in `domain`: it asks a chat model '
    'for the chunk''s factual claims as a JSON array. `kerai.extract_llm_claims` sends it.';

COMMENT ON FUNCTION kerai.parse_llm_claims(text) IS
    'A chat model''s answer to the claim prompt, validated: a JSON array (optionally in a code fence) of claims '
    'with string `statement`, `subject`, `predicate`, `object` and a `confidence` in 0..1, returned as rows '
    '`(statement, subject, predicate, object, confidence, source)` with source `llm`. Error `22023` naming the '
    'claim and field when the answer is not valid.';

COMMENT ON FUNCTION kerai.record_llm_claims(uuid, text, text, text, integer, integer) IS
    'Logs a chat model''s claim extraction for a chunk as an AI request (purpose `claims`) with its response and '
    'token counts (counted with cl100k when NULL), always, so its cost is visible; then validates the response '
    '(`kerai.parse_llm_claims`) and replaces the chunk''s `llm` claims in `kerai.claims`. Returns `{claims, '
    'request}`, or `{claims: 0, request, error}` when the response is not valid. Error `22023` for an unknown '
    'chunk.';

COMMENT ON FUNCTION kerai.extract_llm_claims(uuid, text) IS
    'Asks the configured chat model for the claims of one chunk (`kerai.llm_claims_prompt` with `domain`, '
    'default the setting `llm_claims_domain`) and records them with `kerai.record_llm_claims`, returning its '
    '`{claims, request}` (with `error` when the answer was not valid). Errors: `22023` for an unknown chunk or '
    'when no chat endpoint is configured (`kerai.configure_chat`); `08006` when the endpoint fails.';

COMMENT ON FUNCTION kerai.setting(text) IS
    'The value of a retrieval setting as jsonb: the changed value in `kerai.settings`, else its default from '
    '`kerai.setting_defaults()`; NULL for an unknown key.';

COMMENT ON FUNCTION kerai.setting_defaults() IS
    'The default of every retrieval setting, as one JSON object: `chunk_tokens` 512, `chunk_overlap` 64, '
    '`chunk_strategy` section, `chunk_on_ingest` true, `embedding_provider` local, `embedding_model`, '
    '`embedding_dimensions` 384, `embedding_base_url`, `embedding_api_key_env`, `embedding_batch`, '
    '`embedding_timeout_seconds`, `embedding_max_attempts`, `chat_base_url`, `chat_model`, `chat_api_key_env`, '
    '`chat_timeout_seconds`, `llm_claims`, `llm_claims_domain`, `search_rrf_k` 60, `search_candidates` 100, '
    '`search_fts_budget` 5000, `answer_passages` 5. `kerai.settings` holds only what was changed; view '
    '`kerai.settings_all` shows both.';

COMMENT ON FUNCTION kerai.set_setting(text, jsonb) IS
    'Changes a retrieval setting and returns the value stored. Values are checked: positive whole numbers for '
    'sizes, counts and timeouts, true or false for `chunk_on_ingest` and `llm_claims`, `local` / `openai` / '
    '`none` for `embedding_provider`, `section` / `paragraph` / `length` for `chunk_strategy`, an http(s) URL '
    'without credentials or JSON null for the `*_url` settings. Errors `22023`: unknown key, SQL NULL, a value '
    'of the wrong kind; requires `kerai_admin`.';

COMMENT ON FUNCTION kerai.reset_setting(text) IS
    'Forgets a changed retrieval setting and returns its default (NULL for an unknown key). Requires '
    '`kerai_admin`.';

-- ----- ops

COMMENT ON FUNCTION kerai.counter(text) IS
    'The value of one corpus counter, 0 when it has none: `nodes`, `kind:document`, `kind:reference`, '
    '`kind:concept`, `documents_at_depth:N`, `references:<status>`. It sums `kerai.counter_deltas`, which '
    'statement triggers on nodes and reference_state keep, so it never scans the corpus.';

COMMENT ON FUNCTION kerai.schedule_crawl(text) IS
    'Schedules `SELECT kerai.crawl_cycle()` as pg_cron job `kerai_crawl` and returns the pg_cron job id. Takes '
    'a cron expression (`*/5 * * * *`) or an interval: `1 minute` (the default), `5 minutes`, `2 hours`, '
    '`120 seconds` (whole minutes), or 1 to 59 seconds (pg_cron 1.5 or later). Errors: `55000` when pg_cron is '
    'not installed (the hint says how), `22023` for an interval it cannot express or seconds on pg_cron before '
    '1.5. The job runs as the scheduling role, which needs `kerai_fetcher`.';

COMMENT ON FUNCTION kerai.unschedule_crawl() IS
    'Removes the pg_cron job `kerai_crawl`; returns true when it did, false when there was none or pg_cron is '
    'not installed.';

COMMENT ON FUNCTION kerai.crawler_status() IS
    'The kerai daemons working on this database, running ones first: worker (`host:pid`), host, pid, state '
    '(`running`; `stalled` when its last heartbeat is over 30 s old, as after `kill -9` or a lost network; '
    '`stopped`), when it started, its last heartbeat, when it stopped, what each lane does now (`work`: '
    '`{"site": ..., "resolve": ..., "embed": ...}`), its last error and when, and the fetcher version. '
    'Stopped daemons are listed for a day. Once kerai.start_crawler() has been used, the first row is worker '
    '`supervisor`: its pid, state (`supervising`, `restarting` while it waits to start the daemon again, '
    '`not running` when wanted but no supervisor runs, as after a server restart without `kerai.autostart`, '
    '`stopping`, `stopped`), `work` with the daemon''s pid, starts, last exit, backoff and log file, and the '
    'daemon''s last error.';

COMMENT ON FUNCTION kerai.start_crawler(text) IS
    'Starts the supervised daemon for this database (kerai_admin): a background worker runs `kerai daemon` (the '
    'binary named by `kerai.fetcher_path`) as a child process connected to this database as `login` (default: '
    'the caller; it must be able to log in and be a member of kerai_fetcher), '
    'restarts it with capped backoff (1 s doubling to 60 s) when it dies, and stops it on stop_crawler() or '
    'server shutdown. At most one per database; a second call says it already runs. Errors: `22023` when '
    '`kerai.fetcher_path` is unset, relative, missing or not executable (the hint says how to set it), '
    '`53400` when no background worker slot is free. Returns what it did.';

COMMENT ON FUNCTION kerai.stop_crawler() IS
    'Stops the supervised daemon (kerai_admin): once the transaction commits, the supervisor sends it SIGTERM '
    '(it hands back what it holds), waits up to 40 s, and exits. Returns true when a supervisor was running.';

COMMENT ON FUNCTION kerai.partition_by_month(text, integer) IS
    'Converts `kerai.page_versions` (on `scraped_at`), `chunks` or `ai_requests` (on `created_at`) in place into '
    'a table range-partitioned by month, in one transaction under an ACCESS EXCLUSIVE lock: rows copied into '
    'monthly partitions up to `months_ahead` (default 3) months ahead plus a default partition; indexes, '
    'triggers, policies and dependent views and functions rebuilt; foreign keys into it replaced by a delete '
    'trigger (`kerai.partition_references`). Returns `{table, partitioned_on, rows_moved, partitions, '
    'references_kept_by_trigger}`, or `{table, already_partitioned: true, added_partitions}`. Error `22023` for '
    'any other table; requires `kerai_admin`.';

COMMENT ON FUNCTION kerai.add_month_partitions(integer) IS
    'Makes the missing monthly partitions from this month to `months_ahead` (default 3) months ahead for every '
    'table `kerai.partition_by_month` partitioned, and returns how many it made; schedule it monthly (rows past '
    'the last month land in the default partition). Error `22023` for `months_ahead` outside 0 to 120; requires '
    '`kerai_admin`.';

COMMENT ON FUNCTION kerai.maintain_job_logs() IS
    'Keeps `kerai.job_logs` partitioned by week (Monday 00:00 UTC): makes the partitions of this week and the '
    'four ahead (moving rows of those weeks out of the default partition), drops weekly partitions wholly older '
    'than the `job_log_retention_days` setting (default 90) and deletes older rows of the default partition. '
    'Returns `{retention_days, weeks_made, weeks_dropped, default_rows_deleted}`. `kerai daemon` runs it every '
    'hour; without a daemon, schedule it with pg_cron. Requires `kerai_fetcher` (or `kerai_admin`).';

COMMENT ON FUNCTION kerai.add_user(text, text, text) IS
    'Registers a kerai user: an existing database login role with an e-mail (stored in lower case) and a role, '
    '`admin`, `editor` or `reader` (the default), and grants the login `kerai_admin`, `kerai_editor` or '
    '`kerai_reader`; a login registered before is updated. Returns the user''s id in `kerai.users`. Errors '
    '`22023`: unknown role, no such database role (the hint shows the CREATE ROLE); requires `kerai_admin`.';

COMMENT ON FUNCTION kerai.current_user_id() IS
    'The id in `kerai.users` of the user the current database role is, or NULL when it is none: the default '
    'owner of new targets, scrape jobs and AI requests, and what row-level security compares.';

COMMENT ON FUNCTION kerai.redact_secrets(text) IS
    'The text with the credentials of every URL in it removed: the userinfo (`user:password@`) after '
    '`scheme://` dropped, and the value of every query or fragment parameter with a credential-like name '
    '(`token`, `key`, `password`, `secret`, `sig`, `auth`, `session`, `code`, ... as a `_` / `-` / `.` '
    'separated part, or `apikey`, `sessionid`, `jsessionid`, ...) replaced by `***`. Safe on JSON text, and on '
    'the safe side (`country_code=***`); `kerai._job_log` applies it to every log line.';
