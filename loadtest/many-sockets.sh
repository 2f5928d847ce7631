#!/usr/bin/env bash
# 100,000 logged-in sockets on one machine whose processes may each open at most 20,000
# files: NODES `telepathy serve` nodes of one cluster (PostgreSQL, and a Redis server this
# script starts on its own port so that its memory is this run's alone), each below the
# limit, driven by as many `loadtest connections` generators, each from loopback source
# addresses of its own.
#
# Phase 1, idle: every generator connects its share, spread over every node, and holds for
# HOLD; every user's pushed online count and 200 answers to getOnlineCount per generator
# must be exactly USERS, and so must every node's `telepathy_users_online` once all are
# connected. The script samples each node's resident memory and CPU, Redis's memory and
# CPU, and PostgreSQL's CPU before the connects, once every socket is up, and a minute of
# holding later.
# Phase 2, 10 % chatting: the same, with CHAT_USERS of the sockets matched in pairs and
# chatting (`loadtest chat-relay`, MESSAGES at RATE per second), the rest idle.
#
#   loadtest/many-sockets.sh            # writes $OUT/summary.json and each generator's report
#
# Environment: USERS (100000), NODES (6), HOLD (90s), CHAT_USERS (10000), CHAT_HOLD (180s:
# the idle sockets' hold in phase 2, which must outlast the chat), MESSAGES (20),
# RATE (1), CONNECT_CONCURRENCY (20 handshakes in flight per generator: more only queue on
# two cores, until the nodes' Redis calls pass their 2 s timeout and sockets are closed to
# resync), OUT (a new folder under /tmp), DATABASE (many_sockets, dropped and made again on
# the local PostgreSQL), REDIS_PORT (6391), BIN and LOADTEST_BIN (release builds of the
# workspace, built first when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

users=${USERS:-100000}
nodes=${NODES:-6}
hold=${HOLD:-90s}
chat_users=${CHAT_USERS:-10000}
messages=${MESSAGES:-20}
rate=${RATE:-1}
concurrency=${CONNECT_CONCURRENCY:-20}
database=${DATABASE:-many_sockets}
redis_port=${REDIS_PORT:-6391}
target=${CARGO_TARGET_DIR:-$HOME/.cache/telepathy/target}
bin=${BIN:-$target/release/telepathy}
loadtest=${LOADTEST_BIN:-$target/release/loadtest}
out=${OUT:-$(mktemp -d -t telepathy-many-sockets.XXXXXX)}
mkdir -p "$out"
per_generator=$(( (users + nodes - 1) / nodes ))
[ "$per_generator" -le 18000 ] || { echo "many-sockets: $per_generator sockets per process; use more NODES" >&2; exit 2; }

if [ ! -x "$bin" ] || [ ! -x "$loadtest" ]; then
  cargo build --release --locked --bin telepathy --bin loadtest
fi

pids=()
redis_pid=
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  [ -z "$redis_pid" ] || kill "$redis_pid" 2>/dev/null || true
  wait 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

pg=postgres://postgres@127.0.0.1:5432
psql "$pg/postgres" -qc "DROP DATABASE IF EXISTS $database" -qc "CREATE DATABASE $database"
database_url="$pg/$database"

redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no \
  --daemonize no --logfile "$out/redis.log" &
redis_pid=$!
for _ in $(seq 50); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done

export DATABASE_URL=$database_url REDIS_URL=redis://127.0.0.1:$redis_port TELEPATHY_DEMO=true \
  TELEPATHY_WORKER_THREADS=1 TELEPATHY_LOG_FORMAT=json RUST_LOG=warn
echo "seeding $users users"
"$bin" seed --users "$users" --out "$out/sessions.json" >/dev/null

urls=()
node_pids=()
for n in $(seq 1 "$nodes"); do
  port=$((18100 + n))
  TELEPATHY_LISTEN=127.0.0.1:$port "$bin" serve >"$out/node$n.log" 2>&1 &
  pids+=($!)
  node_pids+=($!)
  urls+=("http://127.0.0.1:$port")
done
for u in "${urls[@]}"; do
  for _ in $(seq 100); do curl -fs "$u/readyz" >/dev/null 2>&1 && break; sleep 0.2; done
  curl -fs "$u/readyz" >/dev/null || { echo "many-sockets: $u is not ready" >&2; exit 1; }
done
url_list=$(IFS=,; echo "${urls[*]}")

# One line of JSON: each node's RSS (KiB) and CPU (s), Redis's and PostgreSQL's.
sample() {
  python3 - "$1" "$redis_port" "$redis_pid" "${node_pids[@]}" <<'EOF'
import json, os, subprocess, sys, time
name, redis_port, redis_pid, nodes = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
tick = os.sysconf("SC_CLK_TCK")
def cpu(pid):
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / tick
def rss(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
def pg_cpu():
    total = 0.0
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                if open(f"/proc/{pid}/comm").read().startswith("postgres"):
                    total += cpu(pid)
            except OSError:
                pass
    return total
info = subprocess.run(["redis-cli", "-p", redis_port, "info", "memory"], capture_output=True, text=True).stdout
used = next(int(l.split(":")[1]) for l in info.splitlines() if l.startswith("used_memory:"))
print(json.dumps({"at": name, "t": time.time(),
    "nodes": [{"rssKb": rss(p), "cpuS": cpu(p)} for p in nodes],
    "redis": {"usedMemory": used, "rssKb": rss(redis_pid), "cpuS": cpu(redis_pid)},
    "postgresCpuS": pg_cpu()}))
EOF
}

sockets_open() {
  local total=0 n
  for u in "${urls[@]}"; do
    n=$(curl -fs "$u/metrics" | sed -n 's/^telepathy_sockets_open \([0-9]*\).*/\1/p')
    total=$((total + ${n:-0}))
  done
  echo "$total"
}

online_per_node() {
  for u in "${urls[@]}"; do
    curl -fs "$u/metrics" | sed -n 's/^telepathy_users_online \([0-9]*\).*/\1/p'
  done | paste -sd, -
}

# Waits until `want` sockets are open over every node; prints the seconds it took.
wait_sockets() {
  local want=$1 started=$SECONDS
  while [ "$(sockets_open)" -lt "$want" ]; do
    [ $((SECONDS - started)) -lt 600 ] || { echo "many-sockets: only $(sockets_open) of $want sockets" >&2; exit 1; }
    sleep 1
  done
}

# phase NAME IDLE CHAT HOLD ONLINE: IDLE sockets held for HOLD, which must all be told
# ONLINE at its end; CHAT more sockets chatting once the idle ones are up.
phase() {
  local name=$1 idle=$2 chat=$3 hold=$4 online=$5 gens=() g skip share status=0
  echo "== $name: $idle idle sockets, $chat chatting"
  sample before >"$out/$name-samples.jsonl"
  local started=$(date +%s.%N)
  share=$(( (idle + nodes - 1) / nodes ))
  for g in $(seq 0 $((nodes - 1))); do
    skip=$((g * share))
    [ "$skip" -lt "$idle" ] || break
    local count=$(( idle - skip < share ? idle - skip : share ))
    "$loadtest" connections --urls "$url_list" --sessions "$out/sessions.json" \
      --users "$count" --skip "$skip" --source-offset "$g" --source-addrs 1 \
      --connect-concurrency "$concurrency" \
      --hold "$hold" --online-total "$online" --linger 45s --json \
      >"$out/$name-idle$g.json" 2>"$out/$name-idle$g.err" &
    gens+=($!)
  done
  wait_sockets "$idle"
  local connected=$(date +%s.%N)
  sample connected >>"$out/$name-samples.jsonl"
  sleep 10   # the online count is pushed at most every 10 s; the presence beat is 2 s
  echo "   every node's users_online: $(online_per_node)" | tee "$out/$name-online.txt"
  if [ "$chat" -gt 0 ]; then
    # The window measured is the chat generator's whole run: connect, match, chat, leave.
    sample held-from >>"$out/$name-samples.jsonl"
    "$loadtest" chat-relay --urls "$url_list" --sessions "$out/sessions.json" \
      --users "$chat" --skip "$idle" --source-offset "$nodes" --source-addrs 1 \
      --connect-concurrency "$concurrency" \
      --messages "$messages" --rate "$rate" --json \
      >"$out/$name-chat.json" 2>"$out/$name-chat.err" || status=1
  else
    sample held-from >>"$out/$name-samples.jsonl"
    sleep 60
  fi
  sample held >>"$out/$name-samples.jsonl"
  for g in "${gens[@]}"; do wait "$g" || status=1; done
  python3 - "$out" "$name" "$started" "$connected" "$users" "$status" <<'EOF'
import glob, json, sys
out, name, started, connected, users, status = sys.argv[1:]
samples = {s["at"]: s for s in map(json.loads, open(f"{out}/{name}-samples.jsonl"))}
b, c, f, h = samples["before"], samples["connected"], samples["held-from"], samples["held"]
nodes_rss = lambda s: sum(n["rssKb"] for n in s["nodes"])
nodes_cpu = lambda s: sum(n["cpuS"] for n in s["nodes"])
online = open(f"{out}/{name}-online.txt").read().split(":")[1].strip().split(",")
reports = {p.rsplit("/", 1)[1][:-5]: json.load(open(p)) for p in sorted(glob.glob(f"{out}/{name}-*.json"))}
failures = {k: r.get("failures") for k, r in reports.items() if r.get("failures")}
held_s = h["t"] - f["t"]
summary = {
    "phase": name, "users": int(users), "generatorsOk": status == "0" and not failures,
    "failures": failures,
    "connectSeconds": round(float(connected) - float(started), 1),
    "connectRatePerS": round(int(users) / (float(connected) - float(started))),
    "usersOnlinePerNode": [int(x) for x in online if x],
    "nodeRssKbPerSocket": round((nodes_rss(c) - nodes_rss(b)) / int(users), 2),
    "nodeRssMbAfter": [round(n["rssKb"] / 1024) for n in c["nodes"]],
    "redisBytesPerUser": round((c["redis"]["usedMemory"] - b["redis"]["usedMemory"]) / int(users)),
    "redisRssMbAfter": round(c["redis"]["rssKb"] / 1024),
    "cpuToConnectS": {"nodes": round(nodes_cpu(c) - nodes_cpu(b), 2),
                      "redis": round(c["redis"]["cpuS"] - b["redis"]["cpuS"], 2),
                      "postgres": round(c["postgresCpuS"] - b["postgresCpuS"], 2)},
    "heldSeconds": round(held_s, 1),
    "cpuHeldPerS": {"nodes": round((nodes_cpu(h) - nodes_cpu(f)) / held_s, 3),
                    "redis": round((h["redis"]["cpuS"] - f["redis"]["cpuS"]) / held_s, 3),
                    "postgres": round((h["postgresCpuS"] - f["postgresCpuS"]) / held_s, 3)},
}
for k, r in reports.items():
    if r.get("relay"):
        relay = r["relay"]
        summary["relay"] = {k: relay[k] for k in ("sent", "delivered", "lost", "duplicated",
                                                   "misrouted", "unacknowledged")}
        summary["relay"]["latencyMs"] = relay.get("latencyMs") or relay.get("sendToReceiverMs")
        summary["relay"]["serverCpuUsPerDelivered"] = round(
            (nodes_cpu(h) - nodes_cpu(f) + h["redis"]["cpuS"] - f["redis"]["cpuS"]
             + h["postgresCpuS"] - f["postgresCpuS"]) * 1e6 / max(relay["delivered"], 1), 1)
        m = r.get("match") or {}
        summary["match"] = {k: m.get(k) for k in ("expectedMatched", "matched", "badRooms",
                                                  "doubleMatched", "latencyMs")}
with open(f"{out}/{name}-summary.json", "w") as f:
    json.dump(summary, f, indent=2)
print(json.dumps(summary, indent=2))
EOF
  [ "$status" = 0 ] || { echo "many-sockets: a generator failed in $name (see $out)" >&2; return 1; }
}

phase idle "$users" 0 "$hold" "$users"
sleep 15   # the users of phase 1 leave the presence records
# The idle sockets hold until well after the chat ended, and must then be told their own
# number again.
phase chat "$((users - chat_users))" "$chat_users" "${CHAT_HOLD:-180s}" "$((users - chat_users))"
echo "results in $out"
