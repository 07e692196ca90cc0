# kerai: one entry point for operations. See README.md.
SHELL := /bin/bash
.DEFAULT_GOAL := help

KERAI_PGPORT ?= 28815
export KERAI_PGPORT

.PHONY: help setup demo demo-stop psql dburl test test-unit install docs fmt lint bench fuzz clean-state

help: ## list targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

setup: ## install system packages, pgvector, cargo-pgrx (idempotent)
	@scripts/setup.sh

demo: ## private cluster + example site + crawl + report
	@scripts/demo.sh

demo-stop: ## stop the supervised crawler, the demo cluster and the example site server
	@scripts/demo.sh stop

psql: ## psql on the demo database
	@psql -X -h 127.0.0.1 -p $(KERAI_PGPORT) -U postgres kerai

dburl: ## print the demo database's connection string
	@scripts/db.sh url $(KERAI_PGPORT) kerai

test: ## every test: cargo, pgrx, pg_regress, end-to-end
	@scripts/setup.sh
	@scripts/test.sh

install: ## build a release of the extension and install it into the system Postgres (KERAI_RELEASE=0: a debug build)
	@scripts/setup.sh
	@KERAI_RELEASE=$${KERAI_RELEASE:-1} scripts/install.sh >/dev/null

bench: ## speed figures (release builds, generated corpora); KERAI_BENCH_ONLY / KERAI_BENCH_SCALE
	@scripts/setup.sh
	@scripts/bench.sh

fuzz: ## fuzz each parser entry point for a few minutes (FUZZ_SECONDS, default 120) on the stable toolchain; not in CI
	@scripts/fuzz.sh $${FUZZ_SECONDS:-120}

docs: ## regenerate docs/reference/ (cli.md from the CLI, sql.md from COMMENT ON) and the output in docs/first-hour.md; make test fails while stale
	@scripts/setup.sh
	@scripts/docs.sh

fmt: ## format the code
	cargo fmt --all

lint: ## rustfmt check and clippy with warnings as errors
	cargo fmt --all -- --check
	cargo clippy --locked --workspace --all-targets -- -D warnings

clean-state: ## stop everything and delete .kerai/ (clusters, logs)
	-@scripts/site.sh stop
	-@scripts/cluster.sh stop demo
	-@scripts/cluster.sh stop test
	rm -rf .kerai
