#!/usr/bin/env bash
# One run of BIN (2 nodes on the Redis at 6379) with Redis's command statistics, and with
# `perf record` of the whole machine for 10 s of the relay phase when SHAPE is R (the app's
# shape); S is the 10,000-join storm (statistics only). Writes OUT/NAME.json, .err,
# .cmdstats and /tmp/perf-NAME.data (read it with `perf report --sort comm,dso,sym`).
#
#   BIN=… BENCH=../shared/bench OUT=out loadtest/sitting/profile.sh NAME R|S
set -uo pipefail
name=$1 shape=$2
out=$(realpath -m "${OUT:-out}")
mkdir -p "$out"
cd "${BENCH:-$(dirname "$0")/../../../shared/bench}"
export BIN=${BIN:?set BIN} USERS=2000 STORM=0 IDLE_USERS=200 HOLD=1 WARMUP=1 TELEPATHY_WORKER_THREADS=1 NODES=2
export MESSAGES=12 RATE=1 RELAY_ARGS="--typing --msg-bytes 120 --hangul --pairs cross"
if [[ $shape == S ]]; then export STORM=1 USERS=10000 MESSAGES=2; fi
unset REDIS_CLUSTER
redis-cli config resetstat >/dev/null
bash run-telepathy.sh >"$out/$name.json" 2>"$out/$name.err" &
run=$!
if [[ $shape == R ]]; then
  # The relay starts once the measured match is reported.
  for _ in $(seq 1200); do grep -q '^match: [0-9]*/' "$out/$name.err" 2>/dev/null && break; sleep 0.05; done
  sleep 1
  perf record -a -g -F 499 -o "/tmp/perf-$name.data" -- sleep 10 2>/dev/null
fi
wait "$run"
redis-cli info commandstats >"$out/$name.cmdstats"
