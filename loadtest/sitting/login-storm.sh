#!/usr/bin/env bash
# Runs `loadtest login-storm` against one node of BIN that it starts on a free loopback
# port behind one trusted proxy, in demo mode: embedded (a fresh SQLite file, the memory
# engine) by default, or over PostgreSQL and Redis with CLUSTER=1 (a fresh schema of
# TEST_DATABASE_URL, the Redis at REDIS_URL, flushed first). Prints the report as JSON and
# stops the node.
#
#   BIN=target/release/telepathy LOADTEST=target/release/loadtest \
#     loadtest/sitting/login-storm.sh [login-storm options...]
set -euo pipefail
bin=$(realpath "${BIN:?set BIN to a telepathy binary}")
loadtest=$(realpath "${LOADTEST:?set LOADTEST to a loadtest binary}")
work=$(mktemp -d -t telepathy-login-storm.XXXXXX)
pid=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
url="http://127.0.0.1:$port"
mkdir -p "$work/static"
vars=("PATH=$PATH" "HOME=${HOME:-/root}" "TELEPATHY_LISTEN=127.0.0.1:$port"
  "TELEPATHY_PUBLIC_ORIGIN=$url" "TELEPATHY_STATIC_DIR=$work/static" "TELEPATHY_DEMO=true"
  "TELEPATHY_TRUSTED_PROXIES=1" "RUST_LOG=warn")
[ -n "${TELEPATHY_WORKER_THREADS:-}" ] && vars+=("TELEPATHY_WORKER_THREADS=$TELEPATHY_WORKER_THREADS")
if [ -n "${CLUSTER:-}" ]; then
  db=${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}
  schema="storm_$$"
  psql "$db" -qc "DROP SCHEMA IF EXISTS $schema CASCADE; CREATE SCHEMA $schema" >/dev/null
  redis=${REDIS_URL:-redis://127.0.0.1:6379}
  redis-cli -u "$redis" flushall >/dev/null
  sep='?'; [[ "$db" == *\?* ]] && sep='&'
  vars+=("DATABASE_URL=${db}${sep}options=-c%20search_path%3D$schema" "REDIS_URL=$redis"
    "TELEPATHY_DATA_KEY=AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=")
else
  vars+=("DATABASE_URL=sqlite://$work/t.db?mode=rwc")
fi
(cd "$work" && exec env -i "${vars[@]}" "$bin" serve >"$work/server.log" 2>&1) &
pid=$!
for _ in $(seq 100); do
  curl -sf "$url/readyz" >/dev/null 2>&1 && break
  sleep 0.2
done
curl -sf "$url/readyz" >/dev/null || { tail -20 "$work/server.log" >&2; exit 1; }
"$loadtest" login-storm --base "$url" --json "$@"
