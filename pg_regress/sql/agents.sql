-- Agents, rewards and perspectives.
\set VERBOSITY terse
\set ON_ERROR_ROLLBACK on
BEGIN;
SELECT name, kind, config->'max_chain_depth' AS depth, config->'allowed_licenses' AS licenses,
       config->'epistemic_weight' AS epistemic, config->'pragmatic_weight' AS pragmatic
  FROM kerai.agents WHERE name = 'kerai_crawl';
SELECT kerai.register_agent('kerai_crawl', 'tool', NULL, '{"rate_limit_seconds": 30}') IS NOT NULL AS updated;
SELECT config->'rate_limit_seconds' AS rate, config->'max_chain_depth' AS depth_kept FROM kerai.agents WHERE name = 'kerai_crawl';
SELECT kerai.register_agent('helper', 'crawler', 'kerai_crawl', '{"max_chain_depth": 2}') IS NOT NULL AS registered;
SELECT a.name, p.name AS parent, a.config->'max_chain_depth' AS depth, a.config->'min_score' AS min_score
  FROM kerai.agents a LEFT JOIN kerai.agents p ON p.id = a.parent_id WHERE a.name = 'helper';
SELECT kerai.parse_markdown('# Somewhere', '{"source_url": "https://example.org/s"}') AS doc \gset
SELECT kerai.mint_reward('helper', 'crawl_ingest', :'doc');
SELECT kerai.write_perspective('helper', :'doc', 0.8, 'relevant');
SELECT kerai.write_perspective('helper', :'doc', 0.9);
SELECT weight, note FROM kerai.perspectives;
SELECT name, balance_nkoi, rewards FROM kerai.agent_balances ORDER BY name;
-- Bad input names what was wrong.
SELECT kerai.register_agent('', 'tool');
SELECT kerai.register_agent('x', 'tool', 'nobody');
SELECT kerai.register_agent('x', 'tool', NULL, '[1]');
SELECT kerai.mint_reward('nobody', 'crawl_ingest');
SELECT kerai.mint_reward('helper', 'gardening');
SELECT kerai.write_perspective('helper', '00000000-0000-0000-0000-000000000000', 0.5);
SELECT kerai.write_perspective('helper', :'doc', 2.0);
ROLLBACK;
