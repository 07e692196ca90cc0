-- Agents (the crawler is the first), their rewards and their perspectives on nodes.

CREATE TABLE kerai.agents (
    id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    name       text NOT NULL UNIQUE,
    kind       text NOT NULL,
    parent_id  uuid REFERENCES kerai.agents (id) ON DELETE SET NULL,
    config     jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT agents_config_is_object CHECK (jsonb_typeof(config) = 'object')
);
COMMENT ON TABLE kerai.agents IS 'Registered agents; the citation crawler is kerai_crawl.';

-- Defaults every crawler agent starts from (seed 004, 21.6); kerai.register_agent merges the
-- caller's config over them.
CREATE FUNCTION kerai.crawler_defaults() RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT '{
        "type": "crawler",
        "rate_limit_seconds": 60,
        "max_chain_depth": 5,
        "min_score": 0.5,
        "max_pdf_mb": 50,
        "allowed_licenses": ["cc-by", "cc-by-sa", "cc-by-nc", "public-domain", "OA"],
        "epistemic_weight": 1.0,
        "pragmatic_weight": 0.5,
        "max_retries": 5,
        "retry_base_seconds": 60
    }'::jsonb
$$;

CREATE FUNCTION kerai.register_agent(
    name text, kind text, parent text DEFAULT NULL, config jsonb DEFAULT '{}'::jsonb
) RETURNS uuid
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
    parent_uuid uuid;
    merged jsonb;
    agent uuid;
BEGIN
    IF name IS NULL OR btrim(name) = '' THEN
        RAISE EXCEPTION 'agent name must not be empty' USING ERRCODE = '22023';
    END IF;
    IF config IS NULL OR jsonb_typeof(config) <> 'object' THEN
        RAISE EXCEPTION 'agent config for "%" must be a JSON object, got %', name, coalesce(jsonb_typeof(config), 'null')
            USING ERRCODE = '22023', HINT = 'pass for example ''{"rate_limit_seconds": 60}''::jsonb';
    END IF;
    IF parent IS NOT NULL THEN
        SELECT a.id INTO parent_uuid FROM kerai.agents a WHERE a.name = parent OR a.id::text = parent;
        IF parent_uuid IS NULL THEN
            RAISE EXCEPTION 'parent agent "%" is not registered', parent USING ERRCODE = '22023',
                HINT = 'register it first with kerai.register_agent';
        END IF;
    END IF;
    merged := CASE WHEN config->>'type' = 'crawler' OR kind = 'crawler' OR name = 'kerai_crawl'
                   THEN kerai.crawler_defaults() || config ELSE config END;
    -- An update first: an INSERT of a name that exists is how a restore replaces a seeded row.
    UPDATE kerai.agents a SET kind = register_agent.kind, parent_id = parent_uuid,
           config = a.config || config, updated_at = now()
     WHERE a.name = register_agent.name
    RETURNING a.id INTO agent;
    IF FOUND THEN
        RETURN agent;
    END IF;
    INSERT INTO kerai.agents AS a (name, kind, parent_id, config)
    VALUES (name, kind, parent_uuid, merged)
    ON CONFLICT ON CONSTRAINT agents_name_key DO UPDATE
        SET kind = EXCLUDED.kind, parent_id = EXCLUDED.parent_id,
            config = a.config || config, updated_at = EXCLUDED.updated_at
    RETURNING a.id INTO agent;
    RETURN agent;
END
$$;

-- An agent by name or id, or an error naming it.
CREATE FUNCTION kerai._agent(agent text) RETURNS kerai.agents
LANGUAGE plpgsql STABLE AS $$
DECLARE
    hit kerai.agents;
BEGIN
    SELECT * INTO hit FROM kerai.agents a WHERE a.name = agent OR a.id::text = agent;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'agent "%" is not registered', agent USING ERRCODE = '22023',
            HINT = 'list agents with SELECT name FROM kerai.agents, or register one with kerai.register_agent';
    END IF;
    RETURN hit;
END
$$;

CREATE TABLE kerai.reward_schedule (
    work_type   text PRIMARY KEY,
    reward_nkoi bigint NOT NULL CHECK (reward_nkoi >= 0)
);
COMMENT ON TABLE kerai.reward_schedule IS 'What each kind of work earns, in nano-Koi (1 Koi = 10^9 nKoi).';
INSERT INTO kerai.reward_schedule (work_type, reward_nkoi) VALUES ('crawl_ingest', 100000000);

CREATE TABLE kerai.reward_ledger (
    id          bigserial PRIMARY KEY,
    agent_id    uuid NOT NULL REFERENCES kerai.agents (id) ON DELETE CASCADE,
    work_type   text NOT NULL REFERENCES kerai.reward_schedule (work_type),
    amount_nkoi bigint NOT NULL,
    node_id     uuid,
    info        jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at  timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE kerai.reward_ledger IS
    'One row per reward minted (kerai.mint_reward): agent_id, work_type, amount_nkoi (1 Koi = 10^9 nKoi), '
    'node_id (the node the work was for), info, created_at. kerai.agent_balances sums it per agent.';
CREATE INDEX reward_ledger_agent_idx ON kerai.reward_ledger (agent_id, created_at);

CREATE FUNCTION kerai.mint_reward(agent text, work_type text, node uuid DEFAULT NULL, info jsonb DEFAULT '{}'::jsonb)
RETURNS bigint
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
    who kerai.agents := kerai._agent(agent);
    amount bigint;
BEGIN
    SELECT s.reward_nkoi INTO amount FROM kerai.reward_schedule s WHERE s.work_type = work_type;
    IF amount IS NULL THEN
        RAISE EXCEPTION 'work type "%" has no reward in kerai.reward_schedule', work_type USING ERRCODE = '22023',
            HINT = 'add it: INSERT INTO kerai.reward_schedule (work_type, reward_nkoi) VALUES (...)';
    END IF;
    INSERT INTO kerai.reward_ledger (agent_id, work_type, amount_nkoi, node_id, info)
    VALUES (who.id, work_type, amount, node, coalesce(info, '{}'::jsonb));
    RETURN amount;
END
$$;

CREATE VIEW kerai.agent_balances AS
SELECT a.name, a.kind, coalesce(sum(l.amount_nkoi), 0)::bigint AS balance_nkoi,
       count(l.id) AS rewards, max(l.created_at) AS last_reward_at
FROM kerai.agents a LEFT JOIN kerai.reward_ledger l ON l.agent_id = a.id
GROUP BY a.id, a.name, a.kind;
COMMENT ON VIEW kerai.agent_balances IS
    'Each agent''s rewards from kerai.reward_ledger: name, kind, balance_nkoi (the sum of amount_nkoi; '
    '1 Koi = 10^9 nKoi), rewards (how many), last_reward_at.';

CREATE TABLE kerai.perspectives (
    document_id uuid NOT NULL,
    agent_id   uuid NOT NULL REFERENCES kerai.agents (id) ON DELETE CASCADE,
    node_id    uuid NOT NULL,
    weight     float8 NOT NULL CHECK (weight BETWEEN -1 AND 1),
    note       text,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (document_id, node_id, agent_id),
    FOREIGN KEY (document_id, node_id) REFERENCES kerai.nodes (document_id, id) ON DELETE CASCADE
);
CREATE INDEX perspectives_node_idx ON kerai.perspectives (node_id, agent_id);
COMMENT ON TABLE kerai.perspectives IS
    'What an agent thinks of a node: weight in [-1, 1] (relevant, surprising: high; dead end: low) and a note.';

CREATE FUNCTION kerai.write_perspective(agent text, node uuid, weight float8, note text DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
    who kerai.agents := kerai._agent(agent);
    doc uuid;
BEGIN
    SELECT n.document_id INTO doc FROM kerai.nodes n WHERE n.id = node;
    IF doc IS NULL THEN
        RAISE EXCEPTION 'node % does not exist', node USING ERRCODE = '22023';
    END IF;
    IF weight IS NULL OR weight NOT BETWEEN -1 AND 1 THEN
        RAISE EXCEPTION 'perspective weight % is outside [-1, 1]', weight USING ERRCODE = '22023',
            HINT = 'use 1 for highly relevant, 0 for neutral, -1 for a dead end';
    END IF;
    INSERT INTO kerai.perspectives AS p (document_id, agent_id, node_id, weight, note)
    VALUES (doc, who.id, node, weight, note)
    ON CONFLICT (document_id, node_id, agent_id) DO UPDATE
        -- The new row's times, not now(): Citus takes no function but an immutable one here.
        SET weight = EXCLUDED.weight, note = coalesce(EXCLUDED.note, p.note), updated_at = EXCLUDED.updated_at;
END
$$;

SELECT kerai.register_agent('kerai_crawl', 'tool', NULL, '{"type": "crawler"}'::jsonb);
