#!/usr/bin/env bash
# Runs a sitting: one line of PLAN per run, in order, each under `flock /tmp/cargo.lock` so
# that no build runs beside it. A line: NAME KIND SHAPE NODES MASTERS STORM [THREADS].
# - KIND: `peer`, NEW or OLD (the release `telepathy` binaries those variables name), or a
#   binary's path.
# - SHAPE: R (the app's: typing, 120 Korean characters, 2,000 users at 1/s), P (the plain
#   shape at the bench's defaults, 3,000 users at 4/s) or Q (the app's, quiet: 500 users at
#   0.5/s), or M (the app's with read marks: each partner message answered with `chatRead`,
#   at most one every 2 s, as the web app does; the bench's driver with read-marks.patch
#   applied, `patch -p1 < read-marks.patch` in a copy of it).
# - MASTERS: 0 for the Redis at 6379, N for a local Redis Cluster of N masters.
# - STORM: 1 for the 10,000-join storm, N > 1 for a storm of N joins.
# - THREADS: each node's worker threads (TELEPATHY_WORKER_THREADS), 1 when left out.
# Writes OUT/NAME.json and OUT/NAME.err.
#
#   NEW=… OLD=… BENCH=../shared/bench OUT=out loadtest/sitting/matrix.sh PLAN
# Then `node loadtest/sitting/sum.js OUT/*.json` prints a line per run.
set -uo pipefail
plan=$(realpath "$1")
out=$(realpath -m "${OUT:-out}")
# run-telepathy.sh reads OUT as a file of its own.
unset OUT
mkdir -p "$out"
cd "${BENCH:-$(dirname "$0")/../../../shared/bench}"
[[ -d node_modules/ws ]] || npm ci --no-audit --no-fund >&2
while read -r name kind shape nodes masters storm threads; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  case $kind in NEW) kind=${NEW:?set NEW} ;; OLD) kind=${OLD:?set OLD} ;; esac
  export USERS=2000 STORM=0 IDLE_USERS=200 HOLD=1 WARMUP=1 TELEPATHY_WORKER_THREADS=${threads:-1} NODES=$nodes
  case $shape in
    R) export MESSAGES=12 RATE=1 RELAY_ARGS="--typing --msg-bytes 120 --hangul --pairs cross" ;;
    P) export USERS=3000 MESSAGES=30 RATE=4 RELAY_ARGS="--pairs cross" ;;
    M) export MESSAGES=12 RATE=1 RELAY_ARGS="--typing --msg-bytes 120 --hangul --pairs cross --read-marks" ;;
    Q) export USERS=500 MESSAGES=10 RATE=0.5 RELAY_ARGS="--typing --msg-bytes 120 --hangul --pairs cross" ;;
    *) echo "unknown shape $shape" >&2; exit 2 ;;
  esac
  if [[ "$storm" == 1 ]]; then export STORM=1 USERS=10000 MESSAGES=2 RATE=1;
  elif (( storm > 1 )); then export STORM=1 USERS=$storm MESSAGES=2 RATE=1; fi
  if (( masters > 0 )); then export REDIS_CLUSTER=$masters; else unset REDIS_CLUSTER; fi
  echo "$(date +%H:%M:%S) start $name" >&2
  if [[ "$kind" == peer ]]; then
    flock /tmp/cargo.lock bash run-peer.sh >"$out/$name.json" 2>"$out/$name.err"
  else
    BIN=$kind flock /tmp/cargo.lock bash run-telepathy.sh >"$out/$name.json" 2>"$out/$name.err"
  fi
  echo "$(date +%H:%M:%S) done $name rc=$?" >&2
done <"$plan"
