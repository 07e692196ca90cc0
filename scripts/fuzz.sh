#!/usr/bin/env bash
# Fuzzes every parser entry point with cargo-fuzz: each target runs for N seconds (default
# 120), seeded from the repository's fixtures and the shared suites. Not part of CI.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]      scripts/fuzz.sh --list
#
# Targets (fuzz/fuzz_targets/):
#   pdf docx xlsx epub text     the document converters (crates/kerai-core/src/convert)
#   html                        charset detection, main content to markdown and text, links,
#                               structured data (html::to_markdown / to_text / extract_structured)
#   source_records              S0 source records, and their JSON options
#   language                    html::language::detect_language
#   citations                   citations::detect_citations (URL, DOI, arXiv, author-year, concepts)
#   references                  references::split_bibliography and parse_reference
#   markdown                    markdown::validate_text and markdown::parse (kerai.parse_markdown)
#
# Needs a nightly toolchain (`rustup toolchain install nightly`) and cargo-fuzz
# (`cargo +nightly install cargo-fuzz --locked`); the script says so when either is missing.
# Crashes land in fuzz/artifacts/<target>/; replay one with
#   cd fuzz && cargo +nightly fuzz run <target> artifacts/<target>/<file>
# Dependency panics caught by convert()'s safety net are listed with KERAI_FUZZ_LOG_PANICS=1.
set -euo pipefail
all=(pdf docx xlsx epub text html source_records language citations references markdown)
if [ "${1:-}" = "--list" ]; then
    printf '%s\n' "${all[@]}"
    exit 0
fi
secs="${1:-120}"
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=("${all[@]}")
root="$(cd "$(dirname "$0")/.." && pwd)"
shared="${KERAI_SHARED:-$root/../shared}"
fx="$root/crates/kerai-core/tests/fixtures"
cd "$root/fuzz"

if ! rustup run nightly rustc --version >/dev/null 2>&1; then
    echo "scripts/fuzz.sh: cargo-fuzz needs a nightly toolchain: rustup toolchain install nightly" >&2
    exit 2
fi
if ! cargo +nightly fuzz --help >/dev/null 2>&1; then
    echo "scripts/fuzz.sh: cargo-fuzz is missing: cargo +nightly install cargo-fuzz --locked" >&2
    exit 2
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
lines references "$shared/suites/citations/references_anystyle_core.jsonl" 50
seed markdown "$fx"/convert/*.md "$fx"/chunk/*.md

status=0
for t in "${targets[@]}"; do
    echo "== $t: ${secs}s"
    if ! cargo +nightly fuzz run -O "$t" "corpus/$t" -- \
        -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1; then
        echo "!! $t found a problem: see fuzz/artifacts/$t/"
        status=1
    fi
done
exit $status
