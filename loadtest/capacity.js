#!/usr/bin/env node
// The capacity model of docs/capacity.md, from measured costs: a storm's bench JSON (CPU per
// join by process) and a relay's (CPU per delivered message), both written by
// ../shared/bench's run-telepathy.sh (OUT=… or its stdout).
//
//   node loadtest/capacity.js STORM.json RELAY.json [--users 100000,1000000] [--rush-s 10]
//        [--msgs-per-min 4] [--busy 0.7] [--queue-share 0.2]
//
// --rush-s: everyone joins within this many seconds of the opening round; --msgs-per-min:
// messages a user in a chat sends a minute (each costs as a delivered message of the relay
// run, its typing notices included when the run had them); --busy: the share of a core a
// process may use before the wait grows; --queue-share: the share of Redis's work on a join
// that falls in the queue's partition on a cluster (one queue per word sits on one master).
const fs = require('fs');

const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : def;
};
const [stormFile, relayFile] = args.filter((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--'));
if (!stormFile || !relayFile) {
  console.error('usage: node loadtest/capacity.js STORM.json RELAY.json [options]');
  process.exit(2);
}
const users = opt('users', '100000,1000000').split(',').map(Number);
const rushS = Number(opt('rush-s', 10));
const msgsPerMin = Number(opt('msgs-per-min', 4));
const busy = Number(opt('busy', 0.7));
const queueShare = Number(opt('queue-share', 0.2));

/** CPU-seconds of a phase by kind of process: nodes, redis, pg. */
function byKind(phase) {
  const out = { nodes: 0, redis: 0, pg: 0 };
  for (const [k, v] of Object.entries(phase?.perProcessCpuS ?? {})) {
    out[k.startsWith('redis') ? 'redis' : k.startsWith('pg') ? 'pg' : 'nodes'] += v ?? 0;
  }
  return out;
}

const storm = JSON.parse(fs.readFileSync(stormFile, 'utf8')).match;
const joins = storm.match.joins;
const perJoin = byKind(storm.cpu.phases.find((p) => p.phase === 'matched'));
const relay = JSON.parse(fs.readFileSync(relayFile, 'utf8')).relay;
const delivered = relay.relay.delivered;
const perMsg = byKind(relay.cpu.phases.find((p) => p.phase === 'relayed'));
const us = (cpuS, n) => (cpuS * 1e6) / n;
const cost = {
  join: { nodes: us(perJoin.nodes, joins), redis: us(perJoin.redis, joins), pg: us(perJoin.pg, joins) },
  msg: { nodes: us(perMsg.nodes, delivered), redis: us(perMsg.redis, delivered), pg: us(perMsg.pg, delivered) },
};
const r = (x) => Math.round(x * 10) / 10;
console.log(`measured: a join ${r(cost.join.nodes)} µs of the nodes, ${r(cost.join.redis)} of Redis, ${r(cost.join.pg)} of PostgreSQL` +
  ` (${joins} joins, p99 ${storm.match.latencyMs?.p99} ms); a message ${r(cost.msg.nodes)} / ${r(cost.msg.redis)} / ${r(cost.msg.pg)}`);

for (const n of users) {
  const joinRate = n / rushS; // joins a second in the rush
  const msgRate = (n * msgsPerMin) / 60; // messages a second once everyone chats
  const cores = (rate, usEach) => (rate * usEach) / 1e6;
  const nodeCores = Math.max(cores(joinRate, cost.join.nodes), cores(msgRate, cost.msg.nodes));
  const redisJoin = cores(joinRate, cost.join.redis);
  const redisMsg = cores(msgRate, cost.msg.redis);
  const pgCores = Math.max(cores(joinRate, cost.join.pg), cores(msgRate, cost.msg.pg));
  const nodes = Math.ceil(nodeCores / busy);
  // Messages spread over every master; the rush's queues over at most four (a round's words).
  const masters = Math.max(1, Math.ceil(Math.max(redisJoin, redisMsg) / busy));
  const wordMaster = (redisJoin * queueShare) / 4; // cores of the master holding one word's queue
  // A bottleneck over its budget drains the rush's backlog after the rush: the last join
  // waits about rushS × (load / capacity − 1).
  const over = (load, capacity) => Math.max(0, rushS * (load / capacity - 1));
  const oneServerWait = over(redisJoin, busy);
  const wordWait = over(wordMaster, busy);
  console.log(`\n${n.toLocaleString('en')} users: ${Math.round(joinRate).toLocaleString('en')} joins/s in the rush, ` +
    `${Math.round(msgRate).toLocaleString('en')} messages/s after`);
  console.log(`  nodes: ${r(nodeCores)} cores busy → ${nodes} one-core nodes at ${busy * 100} %`);
  console.log(`  Redis: the rush ${r(redisJoin)} cores, the chat ${r(redisMsg)} → ${masters} master(s);` +
    ` one server would wait ${r(oneServerWait)} s more at the rush`);
  console.log(`  a word's queue master: ${r(wordMaster)} cores of ${busy}` +
    (wordWait > 0 ? ` — full: the rush's last join waits ${r(wordWait)} s more` : ' — room to spare'));
  console.log(`  PostgreSQL: ${r(pgCores)} cores`);
}
