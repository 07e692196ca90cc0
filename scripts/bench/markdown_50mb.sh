#!/usr/bin/env bash
# Peak memory of one backend ingesting a 50 MB markdown document with kerai.parse_markdown:
# the backend's VmHWM before and after, against the document's size.
#   scripts/bench/markdown_50mb.sh PORT DATABASE [MB]
set -euo pipefail
port="$1"; db="$2"; mb="${3:-50}"
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
file="${KERAI_STATE}/bench-50mb.md"
python3 - "$file" "$mb" <<'PY'
import sys, random
random.seed(7)
words = "the lab opened a new imaging facility where researchers book scanner sessions and study perception learning memory attention".split()
out, size, n = open(sys.argv[1], "w"), 0, 0
target = int(sys.argv[2]) * 1_000_000
while size < target:
    n += 1
    block = f"## Section {n}\n\n" + " ".join(random.choice(words) for _ in range(120)) + f" (Friston, {1990 + n % 30}).\n\n- item one of {n}\n- item two of {n}\n\n"
    out.write(block); size += len(block.encode())
PY
chmod 644 "$file"
as_postgres psql -X -q -h 127.0.0.1 -p "$port" -U postgres -d "$db" <<SQL
\set ON_ERROR_STOP on
CREATE FUNCTION pg_temp.peak_mb() RETURNS numeric LANGUAGE sql AS
  \$\$ SELECT round(substring(pg_read_file('/proc/' || pg_backend_pid() || '/status') from 'VmHWM:\s+(\d+) kB')::numeric / 1024, 1) \$\$;
SELECT pg_temp.peak_mb() AS peak_mb_before;
CREATE TEMP TABLE big AS SELECT pg_read_file('$file') AS md;
SELECT pg_temp.peak_mb() AS peak_mb_with_the_document_in_a_table;
\timing on
SELECT kerai.parse_markdown(md, '{"source_url": "bench:50mb"}') IS NOT NULL AS ingested FROM big;
\timing off
SELECT pg_temp.peak_mb() AS peak_mb_after_parse_markdown;
SELECT (SELECT count(*) FROM kerai.nodes n JOIN kerai.nodes d ON d.id = n.document_id WHERE d.metadata->>'source_url' = 'bench:50mb') AS nodes,
       pg_size_pretty(length(md)::bigint) AS document FROM big;
DELETE FROM kerai.nodes WHERE document_id IN (SELECT id FROM kerai.nodes WHERE kind = 'document' AND metadata->>'source_url' = 'bench:50mb');
SQL
