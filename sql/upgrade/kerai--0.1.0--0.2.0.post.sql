-- Run last: data the new objects need.

-- Works the 0.1.0 citation loop already ingested are known by their keys, so a citation of
-- them in another form is not fetched again.
INSERT INTO kerai.document_keys (key, document_id)
SELECT k, e.target_id
  FROM kerai.edges e
  JOIN kerai.reference_state rs ON rs.node_id = e.source_id
 CROSS JOIN LATERAL unnest(kerai._work_keys(jsonb_strip_nulls(jsonb_build_object(
           'doi', rs.doi, 'arxiv', rs.arxiv, 'url', rs.url)))) k
 WHERE e.relation = 'resolves_to'
ON CONFLICT (key) DO NOTHING;

-- Documents ingested before chunks existed get theirs when the fetcher or SQL calls
-- kerai.chunk_pending() (kerai embed does); nothing is chunked inside the update itself.
