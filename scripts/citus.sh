#!/usr/bin/env bash
# A local Citus cluster for kerai's distributed tests: a coordinator and two workers on
# loopback ports, one cluster directory each under .kerai/ (docs/scale-out.md).
#   citus.sh build            build and install Citus from ../shared/vendor/ unless installed
#   citus.sh available        exit 0 when Citus is installed or can be built; else say why
#   citus.sh start PORT       coordinator on PORT, workers on PORT+1 and PORT+2 (idempotent):
#                             citus, vector, pg_trgm and kerai on every node, workers registered
#   citus.sh add PORT N       start worker N (3, 4 …) on PORT+N and register it
#   citus.sh down N           stop worker N (a worker that is down, for the fault tests)
#   citus.sh up PORT N        start worker N again, on PORT+N
#   citus.sh fresh PORT       the same on new, empty nodes
#   citus.sh stop             stop every node
# Users install Citus from their own packages; this build only makes the tests reproducible.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CITUS_VERSION=13.2.2
tarball="${KERAI_SHARED}/vendor/citus-${CITUS_VERSION}.tar.gz"
pkglib="$("$PG_CONFIG" --pkglibdir)"
build_dir="${KERAI_STATE}/build/citus-${CITUS_VERSION}"
build_log="${KERAI_STATE}/build/citus.log"
BUILD_DEPS=(flex libcurl4-gnutls-dev libicu-dev libkrb5-dev liblz4-dev libzstd-dev libssl-dev
  libxslt1-dev libselinux1-dev libpam0g-dev libreadline-dev uuid-dev)

installed() {
  [ -f "${pkglib}/citus.so" ] && [ -f "$("$PG_CONFIG" --sharedir)/extension/citus.control" ]
}

# Why Citus cannot be had here, in one line (empty when it can).
why_not() {
  if installed; then
    return
  fi
  if [ ! -f "$tarball" ]; then
    echo "Citus is not installed and its source ${tarball} is missing (set KERAI_SHARED)"
  elif [ "$(id -u)" != 0 ]; then
    echo "Citus is not installed and building it needs root (it installs into ${pkglib})"
  elif ! command -v make >/dev/null || ! command -v gcc >/dev/null; then
    echo "Citus is not installed and building it needs make and gcc (apt-get install build-essential)"
  elif [ -n "$(missing_deps)" ] && ! command -v apt-get >/dev/null; then
    echo "Citus is not installed and its build packages ($(missing_deps)) are missing, with no apt-get to install them"
  fi
}

missing_deps() {
  local p out=()
  for p in "${BUILD_DEPS[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || out+=("$p")
  done
  echo "${out[*]}"
}

build() {
  if installed; then
    say "Citus already installed in ${pkglib}"
    return
  fi
  local why
  why="$(why_not)"
  [ -z "$why" ] || die "$why"
  local missing
  read -r -a missing <<<"$(missing_deps)"
  if [ ${#missing[@]} -gt 0 ]; then
    say "apt-get install ${missing[*]} (Citus's build dependencies)"
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1 \
      || { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; } \
      || die "apt-get install ${missing[*]} failed"
  fi
  mkdir -p "${KERAI_STATE}/build"
  rm -rf "$build_dir"
  tar xzf "$tarball" -C "${KERAI_STATE}/build"
  [ -d "$build_dir" ] || die "${tarball} did not unpack to ${build_dir}"
  say "building Citus ${CITUS_VERSION} from ${tarball} (a few minutes on two cores; log: ${build_log})"
  (cd "$build_dir" && ./configure PG_CONFIG="$PG_CONFIG" && make -j"$(nproc)" && make install) >"$build_log" 2>&1 \
    || { tail -n 30 "$build_log" >&2; die "the Citus build failed; see ${build_log}"; }
  rm -rf "$build_dir"
  installed || die "the Citus build ran but ${pkglib}/citus.so is missing; see ${build_log}"
  say "Citus ${CITUS_VERSION} installed"
}

node_names() {
  echo citus-coord citus-w1 citus-w2
  local d
  for d in "${KERAI_STATE}"/citus-w*; do
    [ -e "$d" ] || continue
    d="$(basename "$d")"
    case "$d" in citus-w1 | citus-w2) ;; *) echo "$d" ;; esac
  done
}

psql_at() {
  local port="$1"
  shift
  psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres -d postgres -At "$@"
}

# One node: started with Citus preloaded, the extensions made.
# Start a node's cluster (made on first use).
node_up() {
  local name="$1" port="$2"
  # Logical decoding lets citus_rebalance_start() move shards while writes go on.
  KERAI_PRELOAD_FIRST=citus KERAI_EXTRA_CONF="wal_level = logical
max_wal_senders = 10
max_replication_slots = 10" "${KERAI_ROOT}/scripts/cluster.sh" start "$name" "$port" postgres
}

node() {
  local name="$1" port="$2"
  node_up "$name" "$port"
  psql_at "$port" -c "CREATE EXTENSION IF NOT EXISTS citus; CREATE EXTENSION IF NOT EXISTS vector;
                      CREATE EXTENSION IF NOT EXISTS pg_trgm;"
}

register() {
  local coord="$1" port="$2"
  psql_at "$coord" -c "SELECT citus_add_node('127.0.0.1', ${port})
                        WHERE NOT EXISTS (SELECT 1 FROM pg_dist_node WHERE nodeport = ${port})" >/dev/null
}

start() {
  local port="${1:?citus.sh start needs the port of the coordinator}"
  build
  node citus-coord "$port"
  node citus-w1 $((port + 1))
  node citus-w2 $((port + 2))
  psql_at "$port" -c "SELECT citus_set_coordinator_host('127.0.0.1', ${port})" >/dev/null
  register "$port" $((port + 1))
  register "$port" $((port + 2))
  # kerai on the coordinator: Citus makes it on every worker too.
  psql_at "$port" -c "CREATE EXTENSION IF NOT EXISTS kerai CASCADE"
  say "Citus cluster: coordinator 127.0.0.1:${port}, workers $((port + 1)) and $((port + 2))"
}

add() {
  local port="${1:?citus.sh add needs the port of the coordinator}" n="${2:?and the number of the worker}"
  node "citus-w${n}" $((port + n))
  register "$port" $((port + n))
  say "worker ${n} added on 127.0.0.1:$((port + n))"
}

down() {
  local n="${1:?citus.sh down needs the number of the worker}"
  "${KERAI_ROOT}/scripts/cluster.sh" stop "citus-w${n}"
}

up() {
  local port="${1:?citus.sh up needs the port of the coordinator}" n="${2:?and the number of the worker}"
  node_up "citus-w${n}" $((port + n))
  say "worker ${n} up again on 127.0.0.1:$((port + n))"
}

stop() {
  local n
  for n in $(node_names); do
    "${KERAI_ROOT}/scripts/cluster.sh" stop "$n" || warn "could not stop ${n}"
  done
}

# Every node stopped and its directory removed (a cluster for the next test run starts empty).
remove() {
  local n dir target
  for n in $(node_names); do
    "${KERAI_ROOT}/scripts/cluster.sh" stop "$n" || warn "could not stop ${n}"
    dir="${KERAI_STATE:?}/${n}"
    # A node's directory may be a link to /var/tmp (lib.sh pg_owned_dir): remove that too,
    # and nothing else a link could point at.
    if [ -L "$dir" ]; then
      target="$(readlink -f "$dir" || true)"
      case "$target" in /var/tmp/kerai-*/citus-*) rm -rf "$target" ;; esac
    fi
    rm -rf "$dir"
  done
}

case "${1:-}" in
  build) build ;;
  available)
    why="$(why_not)"
    [ -z "$why" ] || { echo "$why"; exit 1; }
    ;;
  start) start "${2:-}" ;;
  fresh) remove; start "${2:-}" ;;
  add) add "${2:-}" "${3:-}" ;;
  down) down "${2:-}" ;;
  up) up "${2:-}" "${3:-}" ;;
  stop) stop ;;
  *) die "usage: citus.sh build|available|start PORT|fresh PORT|add PORT N|down N|up PORT N|stop" ;;
esac
