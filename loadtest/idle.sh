#!/usr/bin/env bash
# What idle nodes cost: CPU a second of each node and of Redis, with no user on them.
# Starts its own Redis (one server, or MASTERS>0 masters of a Redis Cluster, no replicas) on
# free ports, so that nothing else counts in Redis's figure, and a database of its own;
# measures Redis alone for SECONDS, then with NODES nodes started and settled for SECONDS.
#
#   BIN=target/release/telepathy [NODES=2] [MASTERS=0] [SECONDS=30] bash loadtest/idle.sh
#
# Prints one line: nodes, masters, each node's ms/s, Redis's ms/s above its own idle
# (all masters together), per node. CPU is each thread's run time from /proc (schedstat, in
# nanoseconds: a tick of utime is 10 ms, too coarse for an idle process).
set -euo pipefail
BIN=$(realpath "${BIN:?set BIN to a telepathy binary}")
NODES=${NODES:-2}
MASTERS=${MASTERS:-0}
SECONDS_EACH=${SECONDS:-30}
PG=${PG:-postgres://postgres@127.0.0.1:5432}
work=$(mktemp -d /tmp/idle.XXXXXX)
db=idle_$RANDOM
pids=()
redis_pids=()
cleanup() {
  local p
  for p in "${pids[@]}" "${redis_pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

# A free port whose cluster bus port (10,000 above it) is free too.
free_port() {
  python3 -c '
import random, socket
while True:
    p = random.randint(20000, 50000)
    try:
        for q in (p, p + 10000):
            socket.create_server(("127.0.0.1", q)).close()
        print(p); break
    except OSError:
        pass'
}
ticks() { local p; for p in "$@"; do cat /proc/"$p"/task/*/schedstat; done | awk '{ t += $1 } END { printf "%d", t / 1000 }'; }
hz=1000000

ports=()
if ((MASTERS > 0)); then
  for k in $(seq "$MASTERS"); do
    port=$(free_port)
    mkdir -p "$work/r$port"
    (cd "$work/r$port" && exec redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no \
      --cluster-enabled yes --cluster-config-file nodes.conf >/dev/null 2>&1) &
    redis_pids+=("$!")
    ports+=("$port")
  done
  for port in "${ports[@]}"; do
    for _ in $(seq 100); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
  done
  redis-cli --cluster create $(printf '127.0.0.1:%s ' "${ports[@]}") --cluster-replicas 0 --cluster-yes >/dev/null
  until redis-cli -p "${ports[0]}" cluster info | grep -q 'cluster_state:ok'; do sleep 0.2; done
  url="redis-cluster://127.0.0.1:${ports[0]}?$(printf 'node=127.0.0.1:%s&' "${ports[@]:1}")"
  url=${url%&}
else
  port=$(free_port)
  redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no >/dev/null 2>&1 &
  redis_pids+=("$!")
  until redis-cli -p "$port" ping >/dev/null 2>&1; do sleep 0.1; done
  url=redis://127.0.0.1:$port
fi
psql "$PG/postgres" -qc "CREATE DATABASE $db" >/dev/null

# Redis alone.
r0=$(ticks "${redis_pids[@]}")
sleep "$SECONDS_EACH"
r1=$(ticks "${redis_pids[@]}")
redis_idle=$(((r1 - r0)))

for k in $(seq "$NODES"); do
  port=$(free_port)
  mkdir -p "$work/n$k"
  (cd "$work/n$k" && DATABASE_URL="$PG/$db" REDIS_URL="$url" TELEPATHY_LISTEN=127.0.0.1:$port \
    TELEPATHY_PUBLIC_ORIGIN=http://127.0.0.1:$port TELEPATHY_DEMO=true \
    TELEPATHY_WORKER_THREADS=${TELEPATHY_WORKER_THREADS:-1} exec "$BIN" serve >"$work/node$k.log" 2>&1) &
  pids+=("$!")
  for _ in $(seq 150); do curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break; sleep 0.2; done
  curl -sf "http://127.0.0.1:$port/readyz" >/dev/null || { tail -20 "$work/node$k.log" >&2; exit 1; }
done
# Settled: the first beats and the start's reads are behind.
sleep 5
n0=(); for p in "${pids[@]}"; do n0+=("$(ticks "$p")"); done
r0=$(ticks "${redis_pids[@]}")
sleep "$SECONDS_EACH"
r1=$(ticks "${redis_pids[@]}")
each=()
for i in "${!pids[@]}"; do
  each+=("$(awk -v a="${n0[$i]}" -v b="$(ticks "${pids[$i]}")" -v hz="$hz" -v s="$SECONDS_EACH" \
    'BEGIN { printf "%.2f", (b - a) * 1000 / hz / s }')")
done
awk -v nodes="$NODES" -v masters="$MASTERS" -v each="${each[*]}" -v busy="$((r1 - r0))" \
  -v idle="$redis_idle" -v hz="$hz" -v s="$SECONDS_EACH" 'BEGIN {
    extra = (busy - idle) * 1000 / hz / s
    printf "nodes %d, masters %d: node ms/s %s; Redis %.2f ms/s alone, %.2f ms/s above it (%.2f per node)\n",
      nodes, masters, each, idle * 1000 / hz / s, extra, extra / nodes
  }'
