#!/usr/bin/env bash
# Runs every WebSocket scenario of the load generator once, at a tiny size, against one
# embedded `telepathy serve` it starts on a free loopback port (a fresh SQLite file, the
# memory engine, demo mode), and fails on any correctness failure. No timing is checked.
#
#   loadtest/ci.sh [--no-build]
#
# Builds `telepathy` and `loadtest` (debug) into $CARGO_TARGET_DIR (default target/) first,
# unless --no-build; TELEPATHY_BIN and LOADTEST_BIN name other binaries. Seeds 100 users with `telepathy seed`, then runs, each on users of its
# own: connections (20 users), match-storm (40), chat-relay (20 users, 5 messages at 2/s,
# with typing), round-poll (2 s) and login-storm (100 logins, 4 probe users). Stops the server it started, by PID, on exit.
# Takes about 15 s.
set -euo pipefail
cd "$(dirname "$0")/.."

build=1
for arg in "$@"; do
  case "$arg" in
    --no-build) build= ;;
    *) echo "usage: loadtest/ci.sh [--no-build]" >&2; exit 2 ;;
  esac
done

target=${CARGO_TARGET_DIR:-target}
if [ -n "$build" ]; then
  cargo build --locked --bin telepathy --bin loadtest
fi
bin=${TELEPATHY_BIN:-$target/debug/telepathy}
loadtest=${LOADTEST_BIN:-$target/debug/loadtest}
for b in "$bin" "$loadtest"; do
  [ -x "$b" ] || { echo "ci.sh: $b is missing (cargo build --bin telepathy --bin loadtest)" >&2; exit 1; }
done
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
loadtest=$(cd "$(dirname "$loadtest")" && pwd)/$(basename "$loadtest")

work=$(mktemp -d -t telepathy-loadtest-ci.XXXXXX)
server_pid=
stop_server() {
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=
  fi
}
cleanup() { stop_server; rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# A loopback port nobody listens on.
port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
port=
for _ in $(seq 50); do
  candidate=$((20000 + RANDOM % 10000))
  if ! port_in_use "$candidate"; then port=$candidate; break; fi
done
[ -n "$port" ] || { echo "ci.sh: no free port found" >&2; exit 1; }
url="http://127.0.0.1:$port"

# GET on the server; true when it answers 200.
http_ok() {
  local status
  status=$( (exec 3<>"/dev/tcp/127.0.0.1/$port" &&
    printf 'GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n' "$1" >&3 &&
    head -n 1 <&3) 2>/dev/null || true)
  [[ "$status" == *" 200 "* ]]
}

# Only the variables below: nothing of the caller's environment (REDIS_URL, a .env) leaks in.
mkdir -p "$work/static"
server_env=(env -i "PATH=$PATH" "HOME=${HOME:-/root}"
  "DATABASE_URL=sqlite://$work/t.db?mode=rwc"
  "TELEPATHY_LISTEN=127.0.0.1:$port"
  "TELEPATHY_PUBLIC_ORIGIN=$url"
  "TELEPATHY_STATIC_DIR=$work/static"
  "TELEPATHY_DEMO=true"
  "TELEPATHY_TRUSTED_PROXIES=1"
  "RUST_LOG=warn")

ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
(cd "$work" && exec "${server_env[@]}" "$bin" serve >"$work/server.log" 2>&1) &
server_pid=$!
for _ in $(seq 150); do
  http_ok /readyz && break
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.2
done
if ! http_ok /readyz; then
  echo "ci.sh: the server did not get ready at $url; its log:" >&2
  tail -30 "$work/server.log" >&2
  exit 1
fi
echo "ci.sh: telepathy serve at $url (pid $server_pid)"

(cd "$work" && "${server_env[@]}" "$bin" seed --users 100 --out "$work/sessions.json" --url "$url")

failed=()
scenario() {
  local name=$1
  shift
  echo
  echo "ci.sh: loadtest $name $*"
  if ! "$loadtest" "$name" --urls "$url" --pids "server=$server_pid" "$@"; then
    failed+=("$name")
  fi
}
common=(--sessions "$work/sessions.json")
scenario connections "${common[@]}" --users 20 --skip 0 --hold 5s
scenario match-storm "${common[@]}" --users 40 --skip 20 --min-remaining 3s
scenario chat-relay "${common[@]}" --users 20 --skip 60 --messages 5 --rate 2 --typing --min-remaining 3s
scenario round-poll --duration 2s --concurrency 4
echo
echo "ci.sh: loadtest login-storm"
if ! "$loadtest" login-storm --base "$url" --storm 100 --concurrency 16 --probes 4; then
  failed+=("login-storm")
fi

if ! kill -0 "$server_pid" 2>/dev/null; then
  echo "ci.sh: the server died during the run; its log:" >&2
  tail -30 "$work/server.log" >&2
  failed+=("server")
fi
echo
if [ ${#failed[@]} -gt 0 ]; then
  echo "ci.sh: FAILED: ${failed[*]}; the server's warnings and errors:" >&2
  grep -E "WARN|ERROR" "$work/server.log" | tail -20 >&2 || true
  exit 1
fi
echo "ci.sh: every load-test scenario passed its correctness checks"
