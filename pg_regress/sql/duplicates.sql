-- Duplicate pages, as kerai._job_record stores them (docs/sql.md#duplicate-pages): aliases by
-- rel=canonical and by identical text, near-duplicates flagged by signature, and how each is
-- judged again on the next fetch.
\set VERBOSITY terse
\set ON_ERROR_ROLLBACK on
SET client_min_messages = warning;
BEGIN;
SELECT (kerai.set_target('dups', 'https://dup.example.org/')).name;

-- The new URL of a path, as the fetcher sends it (the hash stands in for SHA-256).
CREATE FUNCTION pg_temp.u(path text) RETURNS jsonb LANGUAGE sql AS $$
    SELECT jsonb_build_object('url', 'https://dup.example.org' || path, 'url_hash', md5(path),
                              'host', 'dup.example.org', 'depth', 1, 'via', 'link',
                              'discovered_from', NULL, 'sitemap', NULL)
$$;
-- Queue and lease a path in the job, record one result for it; returns the outcome.
CREATE FUNCTION pg_temp.record(job uuid, path text, result jsonb) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    uid bigint;
BEGIN
    PERFORM kerai._job_add_urls(job, jsonb_build_array(pg_temp.u(path)));
    UPDATE kerai.job_urls x SET status = 'leased', leased_by = 'w', lease_until = now() + interval '1 minute'
     WHERE x.job_id = job AND x.url_hash = md5(path) RETURNING x.id INTO uid;
    PERFORM kerai._job_record(job, 'w', jsonb_build_array(
        jsonb_build_object('url_id', uid, 'url', 'https://dup.example.org' || path, 'source_type', 'html',
                           'http', jsonb_build_object('status', 200)) || result));
    RETURN (SELECT x.outcome FROM kerai.job_urls x WHERE x.id = uid);
END
$$;
-- A fetched page with this text hash (and a body to ingest).
CREATE FUNCTION pg_temp.page(hash text, extra jsonb DEFAULT '{}') RETURNS jsonb LANGUAGE sql AS $$
    SELECT jsonb_build_object('outcome', 'fetched', 'content_hash', hash,
                              'markdown', '# Page ' || hash || E'\n\nThe text of page ' || hash || E'.\n') || extra
$$;
-- Each page: its alias (path and reason), status, and whether it has a version.
CREATE FUNCTION pg_temp.pages() RETURNS TABLE (path text, shows text, last_status text, has_version boolean)
LANGUAGE sql AS $$
    SELECT substring(p.url from 24), substring(o.url from 24) || ' ' || p.alias_reason, p.last_status,
           p.current_version IS NOT NULL
      FROM kerai.pages p LEFT JOIN kerai.pages o ON o.id = p.alias_of ORDER BY p.url
$$;

SELECT kerai.enqueue_job('dups') AS job \gset
SELECT status FROM kerai._job_begin('w', :'job');

-- The same text at a second URL: an alias of the first, with no version or document.
SELECT pg_temp.record(:'job', '/a', pg_temp.page('ha')) AS a;
SELECT pg_temp.record(:'job', '/a-copy', pg_temp.page('ha')) AS a_copy;
-- The same text under another title is another page (one template, two products).
SELECT pg_temp.record(:'job', '/t1', pg_temp.page('ht', '{"metadata": {"title": "Kettle"}}')) AS t1;
SELECT pg_temp.record(:'job', '/t2', pg_temp.page('ht', '{"metadata": {"title": "Toaster"}}')) AS t2;
-- Pages without text are not compared.
SELECT pg_temp.record(:'job', '/empty-1', '{"outcome": "fetched", "content_hash": "he", "markdown": ""}') AS empty_1;
SELECT pg_temp.record(:'job', '/empty-2', '{"outcome": "fetched", "content_hash": "he", "markdown": " "}') AS empty_2;

-- rel=canonical naming a page not known yet: that page is made and queued; this one is stored
-- for now (its version names the page it declared).
SELECT pg_temp.record(:'job', '/c', pg_temp.page('hc', jsonb_build_object('canonical', pg_temp.u('/d')))) AS c;
SELECT status FROM kerai.job_urls WHERE url_hash = md5('/d');
SELECT metadata->>'canonical_page' = (SELECT id::text FROM kerai.pages WHERE url_hash = md5('/d')) AS declared
  FROM kerai.page_versions WHERE id = (SELECT current_version FROM kerai.pages WHERE url_hash = md5('/c'));
-- The named page names the first as its canonical page: the first has text, so the named page
-- becomes its alias (of two pages naming each other, the one stored first stays).
SELECT pg_temp.record(:'job', '/d', pg_temp.page('hd', jsonb_build_object('canonical', pg_temp.u('/c')))) AS d;
-- A page naming a page not stored yet, with the same text: the named page, stored next, is not
-- taken for a copy of it.
SELECT pg_temp.record(:'job', '/k', pg_temp.page('hk', jsonb_build_object('canonical', pg_temp.u('/l')))) AS k;
SELECT pg_temp.record(:'job', '/l', pg_temp.page('hk')) AS l;
-- rel=canonical naming a page that failed with no text: stored, not an alias.
SELECT pg_temp.record(:'job', '/gone', '{"outcome": "failed", "error": {"kind": "http_status", "message": "HTTP 404"}}') AS gone;
SELECT pg_temp.record(:'job', '/e', pg_temp.page('he2', jsonb_build_object('canonical', pg_temp.u('/gone')))) AS e;
-- rel=canonical naming an alias: the alias of the page that alias shows.
SELECT pg_temp.record(:'job', '/f', pg_temp.page('hf', jsonb_build_object('canonical', pg_temp.u('/a-copy')))) AS f;

-- Near-duplicates: signatures sharing a band and 61 of 64 values are flagged; a band shared
-- with only 50 equal values is not, nor a signature sharing nothing.
SELECT pg_temp.record(:'job', '/g', pg_temp.page('hg', jsonb_build_object('signature', jsonb_build_object(
    'minhash', (SELECT jsonb_agg(i) FROM generate_series(1, 64) i),
    'bands', (SELECT jsonb_agg(i) FROM generate_series(1, 8) i))))) AS g;
SELECT pg_temp.record(:'job', '/h', pg_temp.page('hh', jsonb_build_object('signature', jsonb_build_object(
    'minhash', (SELECT jsonb_agg(CASE WHEN i <= 61 THEN i ELSE 1000 + i END) FROM generate_series(1, 64) i),
    'bands', (SELECT jsonb_agg(CASE WHEN i <= 7 THEN i ELSE 900 + i END) FROM generate_series(1, 8) i))))) AS h;
SELECT pg_temp.record(:'job', '/i', pg_temp.page('hi', jsonb_build_object('signature', jsonb_build_object(
    'minhash', (SELECT jsonb_agg(CASE WHEN i <= 50 THEN i ELSE 1000 + i END) FROM generate_series(1, 64) i),
    'bands', (SELECT jsonb_agg(CASE WHEN i = 1 THEN i ELSE 900 + i END) FROM generate_series(1, 8) i))))) AS i;
SELECT pg_temp.record(:'job', '/j', pg_temp.page('hj', jsonb_build_object('signature', jsonb_build_object(
    'minhash', (SELECT jsonb_agg(2000 + i) FROM generate_series(1, 64) i),
    'bands', (SELECT jsonb_agg(3000 + i) FROM generate_series(1, 8) i))))) AS j;
SELECT substring(p.url from 24) AS path, substring(o.url from 24) AS resembles, v.similarity,
       cardinality(v.minhash) AS values, cardinality(v.minhash_bands) AS bands
  FROM kerai.page_versions v JOIN kerai.pages p ON p.id = v.page_id LEFT JOIN kerai.pages o ON o.id = v.near_duplicate_of
 WHERE v.minhash IS NOT NULL ORDER BY 1;
SELECT kerai._minhash_similarity(ARRAY[1, 2, 3, 4], ARRAY[1, 2, 3, 5]) AS three_of_four,
       kerai._minhash_similarity(ARRAY[1, 2], ARRAY[1, 2, 3]) AS unequal_lengths;
SELECT pg_temp.record(:'job', '/old', pg_temp.page('hold')) AS old;
UPDATE kerai.pages SET first_seen_at = first_seen_at - interval '1 day' WHERE url_hash = md5('/old');

SELECT * FROM pg_temp.pages();
SELECT count(*) AS alias_documents FROM kerai.nodes
 WHERE kind = 'document' AND metadata->>'source_url' IN ('https://dup.example.org/a-copy', 'https://dup.example.org/d');
SELECT message FROM kerai.job_logs WHERE event = 'ITEM_DUPLICATE' ORDER BY id;
SELECT m->'duplicate_count' AS duplicates, m->'near_duplicate_count' AS near, m->'subtotals'->'html'->'duplicate' AS html
  FROM kerai.job_metrics(:'job') m;
SELECT status, exit_code FROM kerai._job_finish(:'job', 'w', 'COMPLETED');

-- Two pages stored with one text before duplicates were judged (as after an update from
-- 0.2.0), and an alias of the newer one: fetched again, the newer gives way to the older, and
-- its alias follows.
SELECT kerai.enqueue_job('dups') AS job2 \gset
SELECT status FROM kerai._job_begin('w', :'job2');
SELECT pg_temp.record(:'job2', '/newer', pg_temp.page('hnewer')) AS newer;
UPDATE kerai.page_versions SET content_hash = 'hold'
 WHERE id = (SELECT current_version FROM kerai.pages WHERE url_hash = md5('/newer'));
UPDATE kerai.pages SET alias_of = (SELECT id FROM kerai.pages WHERE url_hash = md5('/newer')), alias_reason = 'duplicate',
       current_version = NULL, last_status = 'duplicate'
 WHERE url_hash = md5('/e');
SELECT (kerai._job_finish(:'job2', 'w', 'COMPLETED')).status;
SELECT kerai.enqueue_job('dups') AS job3 \gset
SELECT status FROM kerai._job_begin('w', :'job3');
SELECT pg_temp.record(:'job3', '/old', pg_temp.page('hold')) AS old;
SELECT pg_temp.record(:'job3', '/newer', pg_temp.page('hold')) AS newer;
-- An alias answered 304 (its sitemap lastmod) stays an alias.
SELECT pg_temp.record(:'job3', '/d', '{"outcome": "not_modified"}') AS d;
-- Fetched again, a page whose canonical page now has text becomes its alias.
SELECT pg_temp.record(:'job3', '/k', pg_temp.page('hk', jsonb_build_object('canonical', pg_temp.u('/l')))) AS k;
-- An alias whose text parts from the page it showed gets a version of its own.
SELECT pg_temp.record(:'job3', '/a-copy', pg_temp.page('ha2')) AS a_copy;
SELECT * FROM pg_temp.pages() WHERE path IN ('/old', '/newer', '/e', '/d', '/a-copy', '/f', '/k', '/l');

ROLLBACK;
