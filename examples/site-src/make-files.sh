#!/usr/bin/env bash
# Regenerates examples/site/files/ from these sources with LibreOffice (Debian's
# libreoffice-writer-nogui and libreoffice-calc-nogui). Not needed to build or test kerai:
# the outputs are committed.
set -euo pipefail
cd "$(dirname "$0")"
out=../site/files
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
soffice --headless -env:UserInstallation="file://${tmp}/profile" --convert-to 'pdf:writer_web_pdf_Export' --outdir "$tmp" annual-report-2025.html >/dev/null
soffice --headless -env:UserInstallation="file://${tmp}/profile" --infilter='HTML (StarWriter)' --convert-to 'docx:MS Word 2007 XML' --outdir "$tmp" onboarding-guide.html >/dev/null
soffice --headless -env:UserInstallation="file://${tmp}/profile" --convert-to 'xlsx:Calc MS Excel 2007 XML' --outdir "$tmp" budget-2026.fods >/dev/null
cp "$tmp/annual-report-2025.pdf" "$tmp/onboarding-guide.docx" "$tmp/budget-2026.xlsx" "$out/"
ls -l "$out"
