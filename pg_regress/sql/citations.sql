-- kerai.detect_citations: character offsets, one row per callout group.
\set VERBOSITY terse
\set ON_ERROR_ROLLBACK on
BEGIN;
SELECT kind, start_char, end_char, text, detail
  FROM kerai.detect_citations($t$Perception (Friston 2010) as in (Parr & Friston, 2019) and (Da Costa et al., 2020); Helmholtz (1866) said so.$t$);

SELECT kind, text, jsonb_array_length(detail->'items') AS works, detail->'items'->0->>'key' AS first_key
  FROM kerai.detect_citations('Epilepsy is common (WHO, 2010; Bell and Sander, 2002). Offringa et al. (2010, 2012a,b) and Hyman et al. (2002, 2005) agree.');

SELECT kind, text, detail
  FROM kerai.detect_citations('See doi:10.1016/j.jmp.2020.102447, https://arxiv.org/abs/2003.04035, arXiv:2107.12979v2 and www.example.org/page.');

SELECT kind, text, detail
  FROM kerai.detect_citations('The "Bayesian brain hypothesis" and a TOTE (Test, Operate, Test, Exit) unit minimise expected free energy (EFE).');

-- Offsets count characters, not bytes.
SELECT start_char, end_char, text FROM kerai.detect_citations('Ünïcödé first — (Müller, 2001).');

-- Numeric-style text has no author-year citations.
SELECT count(*) AS author_year FROM kerai.detect_citations('As shown in [12] and [3, 4], the rate rose 12% in 2010 (n = 2010).') WHERE kind = 'author_year';

-- kerai.parse_reference: one bibliography entry.
SELECT jsonb_pretty(kerai.parse_reference('Friston, K. (2010). The free-energy principle: a unified brain theory? Nature Reviews Neuroscience, 11(2), 127-138. https://doi.org/10.1038/nrn2787'));
SELECT r->'authors'->0->>'family' AS first_author, r->>'year' AS year, r->>'title' AS title, r->>'arxiv' AS arxiv
  FROM kerai.parse_reference('[7] L. Da Costa, T. Parr, N. Sajid, Active inference on discrete state-spaces: a synthesis, arXiv:2001.07203 (2020).') r;
SELECT * FROM kerai.split_bibliography(E'[1] A. Author, Title one, 2001.\n[2] B. Author, Title two, 2002.');
SELECT kerai.author_year_key('Da Costa', 2020, NULL), kerai.author_year_key('Müller', 2001, 'a'),
       kerai.author_year_key(NULL, 2001, NULL) IS NULL AS no_author, kerai.author_year_key('X', NULL, NULL) IS NULL AS no_year;
SELECT kerai.normalize_title('The Free-Energy Principle: a Unified Brain Theory?');
ROLLBACK;
