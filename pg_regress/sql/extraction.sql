-- The extraction layer in SQL: HTML to markdown, structured data, language, S0 records,
-- token counts, robots.txt and URL normalisation.
\set VERBOSITY terse
\set ON_ERROR_ROLLBACK on
BEGIN;
SELECT kerai.html_to_markdown($h$<html><head><title>Lab news</title></head><body>
<header><nav><a href="/">Home</a> <a href="/about">About</a></nav></header>
<div class="cookie-banner">We use cookies. <button>Accept</button></div>
<main><article><h1>A new imaging lab</h1>
<p>The lab opened on 12 March 2026 and houses a 7 tesla scanner, <a href="/lab">details</a>.</p>
<h2>Who runs it</h2><ul><li>Dr. Henrik Aalto</li><li>Maya Patel</li></ul>
<table><tr><th>Item</th><th>Cost</th></tr><tr><td>Scanner</td><td>£6.8 million</td></tr></table>
</article></main>
<aside class="sidebar"><h3>Related</h3><a href="/x">Something else</a></aside>
<footer>© 2026 Northwind Institute. All rights reserved.</footer></body></html>$h$, 'https://example.org/news/lab');

SELECT jsonb_pretty(kerai.extract_structured($h$<html lang="en"><head>
<meta name="description" content="About us"><meta property="og:title" content="About">
<meta name="twitter:card" content="summary"><link rel="canonical" href="https://example.org/about">
<link rel="alternate" hreflang="de" href="https://example.org/de/about">
<script type="application/ld+json">{"@context": "https://schema.org", "@graph": [{"@type": "Organization", "name": "Northwind", "foundingDate": "1998"}, {"@type": "WebPage", "name": "About"}]}</script>
<script type="application/ld+json">{"@type": "Person", "name": "broken", }</script>
<script type="application/ld+json">{not json at all</script>
</head><body></body></html>$h$));

SELECT lang, round(confidence::numeric, 2) > 0.5 AS confident
  FROM kerai.detect_language('The crawler keeps the knowledge base of the intranet fresh every week.') LIMIT 1;
SELECT lang FROM kerai.detect_language('Facultad de Ingeniería y Ciencias Aplicadas de la universidad') LIMIT 1;

-- Seed 002's example A: department list, footer removed, "Admissions" dropped.
SELECT r->>'text' AS text, r->'provenance'->>'section' AS section, r->'provenance'->>'institution' AS institution
  FROM jsonb_array_elements(kerai.source_records($h$<html><body><h2>Departments</h2>
<ul><li>Computer Science</li><li>Electrical &amp; Computer Engineering</li><li>Admissions</li></ul>
<footer>© 2025 University</footer></body></html>$h$, 'https://u1.edu/eng/depts',
  '{"institution": "u1", "target_language": "en"}')->'records') r;
-- Example B: a non-target language block is dropped; example C: a list repeated in the
-- sidebar collapses to the first occurrence.
SELECT r->>'text' AS text, r->'provenance'->>'section' AS section
  FROM jsonb_array_elements(kerai.source_records($h$<html lang="en"><body><main><h2>Programmes</h2>
<p>The faculty offers undergraduate and graduate programmes in engineering and applied science.</p>
<ul><li>Mechanical Engineering degree</li><li>Civil Engineering degree</li></ul>
<p>Facultad de Ingeniería – Admisiones</p></main>
<aside><h3>Also see</h3><ul><li>Mechanical Engineering degree</li><li>Civil Engineering degree</li></ul></aside></body></html>$h$,
  'https://u1.edu/programmes', '{"target_language": "en"}')->'records') r;
SELECT (o->'counters') - 'by_language' AS counters, o->'counters'->'by_language' AS by_language
  FROM kerai.source_records($h$<html lang="en"><body><main><h2>Programmes</h2>
<p>The faculty offers undergraduate and graduate programmes in engineering and applied science.</p>
<ul><li>Mechanical Engineering degree</li><li>Civil Engineering degree</li></ul>
<p>Facultad de Ingeniería – Admisiones</p></main>
<aside><h3>Also see</h3><ul><li>Mechanical Engineering degree</li><li>Civil Engineering degree</li></ul></aside></body></html>$h$,
  'https://u1.edu/programmes', '{"target_language": "en"}') o;
SELECT kerai.source_records('<p>x</p>', 'https://u1.edu/', '[1]');

SELECT kerai.count_tokens('hello world') AS tokens, kerai.count_tokens('') AS none;

SELECT kerai.robots_allowed(E'User-agent: *\nDisallow: /private/\n\nUser-agent: kerai\nDisallow: /kerai-only/', 'kerai/0.1 (knowledge crawler)', u) AS allowed, u
  FROM unnest(ARRAY['https://example.org/private/x', 'https://example.org/kerai-only/x', 'https://example.org/open']) u;
SELECT kerai.robots_allowed('', 'kerai', 'https://example.org/anything') AS empty_allows;

SELECT kerai.normalize_url('HTTPS://Example.ORG:443/a/./b/../c?utm_source=x&b=2&a=1#frag');
SELECT kerai.normalize_url('not a url') IS NULL AS rejected;
SELECT length(kerai.url_hash('https://example.org/')) AS hash_len;
SELECT kerai.family_key('Da Costa, L.'), kerai.family_key('Karl J. Friston');
ROLLBACK;
