#!/usr/bin/env bash
# Fuzzes every parser entry point with cargo-fuzz (libFuzzer) on the stable toolchain: each
# target runs for N seconds (default 120), or for FUZZ_RUNS executions when that is set, from
# the kept corpus under fuzz/corpus/<target>/, seeded from the repository's fixtures and the
# shared suites. Not part of CI; `make test` replays the kept corpus (crates/kerai-core/tests/fuzz_corpus.rs).
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]      scripts/fuzz.sh --list
#   FUZZ_RUNS=1000000 scripts/fuzz.sh 0 html   (1M executions; with SECONDS > 0, whichever comes first)
#   scripts/fuzz.sh --minimize [TARGET...]
#
# Targets (fuzz/fuzz_targets/, bodies in fuzz/src/entries.rs):
#   pdf docx xlsx epub text     the document converters (crates/kerai-core/src/convert)
#   html                        charset detection, main content to markdown and text, links,
#                               structured data (html::to_markdown / to_text / extract_structured)
#   source_records              S0 source records, and their JSON options
#   language                    html::language::detect_language
#   citations                   citations::detect_citations (URL, DOI, arXiv, author-year, concepts)
#   facts                       facts::entities and facts::claims_from_text
#   references                  references::split_bibliography and parse_reference
#   markdown                    markdown::validate_text and markdown::parse (kerai.parse_markdown)
#   robots                      site::robots (parse, is_allowed, crawl_delay, sitemaps)
#   sitemaps                    site::sitemap::parse (XML, text, RSS/Atom, gzip)
#
# Runs without sanitizers (`-s none`), which needs no nightly toolchain; Rust's own checks
# (bounds, arithmetic overflow with -a, panics) still abort on a bug. Installs
# cargo-fuzz when it is missing. Crashes land in fuzz/artifacts/<target>/; replay one with
#   cd fuzz && cargo fuzz run -s none -O -a <target> artifacts/<target>/<file>
# `--minimize` shrinks each kept corpus to the inputs that add coverage (cargo fuzz cmin).
# Dependency panics caught by convert()'s safety net are listed with KERAI_FUZZ_LOG_PANICS=1.
set -euo pipefail
all=(pdf docx xlsx epub text html source_records language citations facts references markdown robots sitemaps)
CARGO_FUZZ_VERSION=0.13.2
if [ "${1:-}" = "--list" ]; then
    printf '%s\n' "${all[@]}"
    exit 0
fi
minimize=0
if [ "${1:-}" = "--minimize" ]; then
    minimize=1
    shift
    secs=0
else
    secs="${1:-120}"
    shift || true
fi
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=("${all[@]}")
root="$(cd "$(dirname "$0")/.." && pwd)"
shared="${KERAI_SHARED:-$root/../shared}"
fx="$root/crates/kerai-core/tests/fixtures"
cd "$root/fuzz"

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "scripts/fuzz.sh: installing cargo-fuzz ${CARGO_FUZZ_VERSION} (about 2 minutes)"
    cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --locked >/dev/null \
        || { echo "scripts/fuzz.sh: cargo install cargo-fuzz failed" >&2; exit 2; }
fi

if [ "$minimize" = 1 ]; then
    for t in "${targets[@]}"; do
        echo "== $t: minimizing corpus/$t ($(ls "corpus/$t" | wc -l) inputs)"
        cargo fuzz cmin -s none -O -a "$t" "corpus/$t" -- -rss_limit_mb=2048 -timeout=10 2>&1 | tail -1
    done
    exit 0
fi

seed() {
    local target="$1"
    shift
    mkdir -p "corpus/$target"
    cp "$@" "corpus/$target/"
}
part() { # target, file, zip entry, seed name: an XML part as a seed for the wrapped mode
    mkdir -p "corpus/$1"
    unzip -p "$2" "$3" > "corpus/$1/$4"
}
lines() { # target, jsonl file, how many: the "text" field of the first lines, one seed each
    mkdir -p "corpus/$1"
    [ -f "$2" ] || return 0
    python3 - "$2" "$3" "corpus/$1" <<'PY'
import json, sys
path, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
with open(path, encoding="utf-8") as f:
    for i, line in enumerate(f):
        if i >= n:
            break
        text = json.loads(line).get("text", "")
        open(f"{out}/line-{i}", "w", encoding="utf-8").write(text)
PY
}
seed pdf "$fx"/convert/*.pdf
seed docx "$fx"/convert/handbook.docx "$fx"/convert/corrupt.docx
part docx "$fx/convert/handbook.docx" word/document.xml document.xml
seed xlsx "$fx"/convert/budget.xlsx "$fx"/convert/corrupt.xlsx
part xlsx "$fx/convert/budget.xlsx" xl/worksheets/sheet1.xml sheet1.xml
part xlsx "$fx/convert/budget.xlsx" xl/worksheets/sheet2.xml sheet2.xml
seed epub "$fx"/convert/stories.epub "$fx"/convert/corrupt.epub
part epub "$fx/convert/stories.epub" OEBPS/sections/section0002.xhtml section2.xhtml
seed text "$fx"/convert/*.txt "$fx"/convert/*.md
seed html "$fx"/html/*.html "$root"/examples/site/*.html
seed source_records "$fx"/html/*.html
printf '{"target_language": "en", "min_chars": 3, "whitelist": ["x"]}' > corpus/source_records/options.json
seed language "$fx"/convert/notes-*.txt
lines language "$shared/suites/langdetect/lingua_testdata_sample.jsonl" 50
lines citations "$shared/suites/citations/intext_dev.jsonl" 50
seed citations "$fx"/chunk/*.md
lines facts "$shared/suites/citations/intext_dev.jsonl" 20
seed facts "$fx"/chunk/*.md
lines references "$shared/suites/citations/references_anystyle_core.jsonl" 50
seed markdown "$fx"/convert/*.md "$fx"/chunk/*.md
robots_seeds() { # the distinct robots.txt bodies of the shared robots suite
    mkdir -p corpus/robots
    [ -f "$1" ] || return 0
    python3 - "$1" corpus/robots <<'PY'
import hashlib, json, sys
path, out = sys.argv[1], sys.argv[2]
for line in open(path, encoding="utf-8"):
    body = json.loads(line).get("robots", "").encode()
    if body:
        open(f"{out}/suite-{hashlib.sha1(body).hexdigest()[:12]}", "wb").write(body)
PY
}
robots_seeds "$shared/suites/robots/robots_cases.jsonl"
mkdir -p corpus/sitemaps
if [ -d "$shared/suites/sitemaps/usp" ]; then
    find "$shared/suites/sitemaps/usp" -path '*/files/*' -type f | while read -r f; do
        cp "$f" "corpus/sitemaps/usp-$(sha1sum "$f" | cut -c1-12)"
    done
fi

status=0
for t in "${targets[@]}"; do
    if [ -n "${FUZZ_RUNS:-}" ]; then
        # FUZZ_RUNS executions, or SECONDS when that is not 0 and comes first.
        echo "== $t: ${FUZZ_RUNS} executions (at most ${secs}s; 0: no limit)"
        budget=(-runs="$FUZZ_RUNS")
        [ "$secs" != 0 ] && budget+=(-max_total_time="$secs")
    else
        echo "== $t: ${secs}s"
        budget=(-max_total_time="$secs")
    fi
    if ! cargo fuzz run -s none -O -a "$t" "corpus/$t" -- \
        "${budget[@]}" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1; then
        echo "!! $t found a problem: see fuzz/artifacts/$t/"
        status=1
    fi
done
exit $status
