#!/usr/bin/env node
// How long a Redis master's writes take to reach a replica, while something else writes:
// every 20 ms, on each master, a write of its own and then WAIT 1 1000, which answers once
// a replica holds everything the master was sent before that write.
//   node loadtest/waitprobe.js PORT,PORT,… SECONDS   (the masters' ports on 127.0.0.1)
// Prints {n, unacknowledged, p50, p99, max} in ms. Needs nothing but Node.
'use strict';
const net = require('net');

const ports = process.argv[2].split(',').map(Number);
const seconds = Number(process.argv[3] || 30);

/// One connection; `call(...args)` answers the first line of the reply (enough here).
function connect(port) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => resolve({ call }));
    socket.on('error', reject);
    let buffer = '';
    const waiting = [];
    socket.on('data', (chunk) => {
      buffer += chunk.toString('latin1');
      let end;
      while ((end = buffer.indexOf('\r\n')) >= 0) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        waiting.shift()(line);
      }
    });
    function call(...args) {
      const body = args.map((a) => `$${Buffer.byteLength(String(a))}\r\n${a}\r\n`).join('');
      socket.write(`*${args.length}\r\n${body}`);
      return new Promise((r) => waiting.push(r));
    }
  });
}

(async () => {
  const lat = [];
  let unacknowledged = 0;
  const until = Date.now() + seconds * 1000;
  const sockets = await Promise.all(ports.map(connect));
  await Promise.all(sockets.map(async (c) => {
    // A key this master serves (the others answer -MOVED).
    let key = null;
    for (let i = 0; key === null; i++) {
      if (!(await c.call('INCR', `waitprobe:{${i}}`)).startsWith('-')) key = `waitprobe:{${i}}`;
    }
    while (Date.now() < until) {
      const t = process.hrtime.bigint();
      await c.call('INCR', key);
      const n = await c.call('WAIT', '1', '1000');
      const ms = Number(process.hrtime.bigint() - t) / 1e6;
      if (n === ':0') unacknowledged++; else lat.push(ms);
      await new Promise((r) => setTimeout(r, 20));
    }
  }));
  lat.sort((a, b) => a - b);
  const q = (p) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))]?.toFixed(2);
  console.log(JSON.stringify({ n: lat.length, unacknowledged, p50: q(0.5), p99: q(0.99), max: lat.at(-1)?.toFixed(2) }));
  process.exit(0);
})();
