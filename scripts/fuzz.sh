#!/usr/bin/env bash
# Fuzzes the document converters (crates/kerai-core/src/convert) with cargo-fuzz: each target
# runs for N seconds (default 120), seeded from the conversion fixtures. Not part of CI.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]      targets: pdf docx xlsx epub text
#
# Needs the nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz --locked`).
# Crashes land in fuzz/artifacts/<target>/; replay one with
#   cd fuzz && cargo +nightly fuzz run <target> artifacts/<target>/<file>
# Dependency panics caught by convert()'s safety net are listed with KERAI_FUZZ_LOG_PANICS=1.
set -euo pipefail
secs="${1:-120}"
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(pdf docx xlsx epub text)
root="$(cd "$(dirname "$0")/.." && pwd)"
fx="$root/crates/kerai-core/tests/fixtures/convert"
cd "$root/fuzz"

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
seed pdf "$fx"/*.pdf
seed docx "$fx"/handbook.docx "$fx"/corrupt.docx
part docx "$fx/handbook.docx" word/document.xml document.xml
seed xlsx "$fx"/budget.xlsx "$fx"/corrupt.xlsx
part xlsx "$fx/budget.xlsx" xl/worksheets/sheet1.xml sheet1.xml
part xlsx "$fx/budget.xlsx" xl/worksheets/sheet2.xml sheet2.xml
seed epub "$fx"/stories.epub "$fx"/corrupt.epub
part epub "$fx/stories.epub" OEBPS/sections/section0002.xhtml section2.xhtml
seed text "$fx"/*.txt "$fx"/*.md

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
