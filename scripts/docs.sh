#!/usr/bin/env bash
# `make docs`: regenerate docs/reference/cli.md (from the CLI's definitions),
# docs/reference/sql.md (from the COMMENT ONs of a fresh install, in the test cluster) and the
# captured output in docs/first-hour.md (running its commands against the example site).
# `make test` fails while any of them is stale.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$KERAI_ROOT"
port="${KERAI_TEST_PGPORT:-28816}"
export KERAI_WRITE_DOCS=1
say "docs/reference/cli.md"
cargo test --locked -q -p kerai-fetch cli_reference >/dev/null
say "docs/reference/sql.md (installing the extension, test cluster on port ${port})"
scripts/install.sh >/dev/null
scripts/cluster.sh fresh test "$port" kerai_cron >/dev/null
export KERAI_TEST_DATABASE_URL="postgresql://postgres@127.0.0.1:${port}/postgres"
cargo test --locked -q -p kerai-e2e --test docs >/dev/null
say "docs/first-hour.md (the guide's commands, run against the example site)"
cargo build --locked -q -p kerai-fetch
KERAI_BIN="${KERAI_ROOT}/target/debug/kerai" cargo test --locked -q -p kerai-e2e --test first_hour >/dev/null
scripts/cluster.sh stop test >/dev/null 2>&1 || true
git status --short docs/reference docs/first-hour.md
