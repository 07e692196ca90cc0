-- Time-ordered ids (UUID v7) for the graph, once the Rust function exists.
ALTER TABLE kerai.nodes ALTER COLUMN id SET DEFAULT kerai.uuid7();
ALTER TABLE kerai.edges ALTER COLUMN id SET DEFAULT kerai.uuid7();
