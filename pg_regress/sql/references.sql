-- kerai.extract_references: citations become deduplicated reference nodes linked by cites
-- edges; a References section becomes one reference per entry; author-year callouts link to
-- their entry.
\set VERBOSITY terse
\set ON_ERROR_ROLLBACK on
BEGIN;
SELECT kerai.parse_markdown($md$# A reading guide

Active inference starts from the free-energy principle (Friston, 2010). Perception as
inference goes back to Helmholtz (1866); see also (Friston, 2010) again and
https://example.org/notes for notes, and doi:10.7554/eLife.41703 for curiosity.

Agents minimise expected free energy (EFE), a "Bayesian brain hypothesis" idea.

## References

1. Friston, K. (2010). The free-energy principle: a unified brain theory? Nature Reviews Neuroscience, 11(2), 127-138. https://doi.org/10.1038/nrn2787
2. Helmholtz, H. von (1866). Handbuch der physiologischen Optik. Leipzig: Voss.
3. Clark, A. (2013). Whatever next? Predictive brains, situated agents, and the future of cognitive science. Behavioral and Brain Sciences, 36(3), 181-204.
$md$, '{"source_url": "https://example.org/guide"}') AS doc \gset

SELECT jsonb_pretty(kerai.extract_references(:'doc') - 'document');

-- One reference per work: the entry, its in-text callouts and its DOI are the same node.
SELECT r.ref_type, left(r.content, 60) AS content, r.doi, r.cite_count, r.status, r.chain_depth
  FROM kerai.references r ORDER BY r.ref_type, r.content;

-- Each citing node cites a reference once, with about 100 characters of context.
SELECT n.kind AS citing, left(r.content, 30) AS reference, length(e.metadata->>'context') BETWEEN 60 AND 140 AS context_ok,
       e.metadata->>'citation' AS citation
  FROM kerai.edges e JOIN kerai.nodes n ON n.id = e.source_id JOIN kerai.nodes r ON r.id = e.target_id
 WHERE e.relation = 'cites' ORDER BY n.kind, r.content, citation;

-- A second document citing the same works (another form of the DOI, the same author-year
-- callout, a title with different punctuation) adds no new reference for them.
SELECT kerai.parse_markdown($md$# Another paper

The principle (Friston, 2010) and https://doi.org/10.1038/NRN2787 again.

## Bibliography

- Clark, A. 2013. "Whatever next? Predictive brains, situated agents and the future of cognitive science." Behav. Brain Sci. 36: 181-204.
$md$, '{"source_url": "https://example.org/other"}') AS doc2 \gset
SELECT (kerai.extract_references(:'doc2'))->'references' AS references_touched;
SELECT count(*) AS reference_nodes FROM kerai.nodes WHERE kind = 'reference';
SELECT left(content, 40) AS content, cite_count FROM kerai.references WHERE doi = '10.1038/nrn2787' OR content LIKE 'Clark%' ORDER BY content;
-- The DOI names that one reference (kerai.reference_keys).
SELECT k.key, n.content LIKE 'Friston%' AS friston FROM kerai.reference_keys k JOIN kerai.nodes n ON n.id = k.node_id
 WHERE k.key LIKE 'doi:10.1038/%';

-- Re-extracting changes nothing; deleting a document (kerai.delete_document) takes its
-- citations and counts along.
SELECT (kerai.extract_references(:'doc2'))->'new_cites_edges' AS new_edges;
SELECT kerai.delete_document(:'doc2') AS deleted;
SELECT left(content, 40) AS content, cite_count FROM kerai.references WHERE doi = '10.1038/nrn2787' OR content LIKE 'Clark%' ORDER BY content;
SELECT kerai.delete_document(:'doc2') AS deleted_again;
SELECT kerai.delete_document(NULL) AS deleted_nothing;
-- A document deleted by hand (its kerai.documents row) takes its citations too; the counts
-- follow at the next kerai.crawl_cycle, which counts again the references whose citations changed.
SELECT kerai.parse_markdown('# Third\n\nAgain (Friston, 2010).', '{"source_url": "https://example.org/third"}') AS doc3 \gset
SELECT (kerai.extract_references(:'doc3'))->'new_cites_edges' AS new_edges;
SELECT cite_count FROM kerai.references WHERE doi = '10.1038/nrn2787';
DELETE FROM kerai.documents WHERE id = :'doc3';
SELECT kerai._recount_cites() AS recounted;
SELECT cite_count FROM kerai.references WHERE doi = '10.1038/nrn2787';

SELECT kerai.extract_references('00000000-0000-0000-0000-000000000000');

-- One page cited in different URL forms (case, default port, fragment, tracking parameter,
-- trailing slash) is one reference, stored in kerai's normal form.
SELECT kerai._url_variants('HTTP://Example.org:80/guide/#intro') AS slash,
       kerai._url_variants('https://example.org/guide?utm_source=x&b=1') AS query,
       kerai._url_variants('https://example.org/') AS root, kerai._url_variants(NULL) AS null_url;
SELECT kerai.parse_markdown($md$# Links

- https://example.org/guide/
- See HTTPS://Example.org:443/guide#intro, again.
- And https://example.org/guide?utm_source=feed, but http://example.org/guide is another scheme.
- A different page: https://example.org/guide/part-2
$md$, '{"source_url": "https://example.org/links"}') AS links \gset
SELECT (kerai.extract_references(:'links'))->'references' AS references_touched;
SELECT url, cite_count FROM kerai.references WHERE url LIKE '%example.org/guide%' ORDER BY url;

-- A bibliography that repeats an author with a dash (Chicago style): the entry has the authors
-- of the one before, so the callout (Scott 1836) finds it.
SELECT kerai.parse_markdown($md$# Scott's histories

Scott wrote history for children (Scott 1836), after his novels (Scott 1820).

## Works cited

Scott, Walter. 1820. Ivanhoe. Edinburgh: Constable.

———. 1836. Tales of a Grandfather. Edinburgh: R. Cadell.
$md$, '{"source_url": "https://example.org/scott"}') AS scott \gset
SELECT (kerai.extract_references(:'scott'))->'references' AS references_touched;
SELECT left(content, 40) AS reference, cite_count, first_author, metadata->'authors'->0->>'family' AS parsed_author
  FROM kerai.references WHERE content LIKE '%Scott%' OR content LIKE '———%' ORDER BY content;
ROLLBACK;
