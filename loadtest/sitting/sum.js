// The sitting's runs, a line each: CPU per delivered message in the relay phase (nodes /
// Redis / PostgreSQL), the relay's p50 / p99, losses, the leave, the match; for a storm,
// join→matched and CPU per join (nodes / Redis / PostgreSQL).
//   node loadtest/sitting/sum.js OUT/*.json
const fs = require('fs');
const r1 = (x) => (x == null ? '-' : Math.round(x * 10) / 10);
for (const f of process.argv.slice(2)) {
  let j;
  try { j = JSON.parse(fs.readFileSync(f, 'utf8')); } catch { console.log(f, 'unreadable'); continue; }
  const name = f.replace(/^.*\//, '').replace(/\.json$/, '');
  const d = j.relay ?? {};
  const rel = d.relay ?? {};
  const ph = (d.cpu?.phases ?? []).find((p) => p.phase === 'relayed');
  let line = name;
  if (ph && rel.delivered) {
    const per = {};
    let other = 0;
    for (const [k, v] of Object.entries(ph.perProcessCpuS)) {
      const g = k.startsWith('redis') ? 'redis' : k.startsWith('pg') ? 'pg' : 'nodes';
      per[g] = (per[g] ?? 0) + (v ?? 0);
    }
    const us = (s) => r1((s * 1e6) / rel.delivered);
    const all = Object.values(per).reduce((a, b) => a + b, 0);
    line += ` relay ${us(all)} µs (nodes ${us(per.nodes ?? 0)} / redis ${us(per.redis ?? 0)} / pg ${us(per.pg ?? 0)})`;
    line += ` p50/p99 ${rel.latencyMs?.p50}/${rel.latencyMs?.p99} lost ${rel.lost} alt ${rel.altered} dup ${rel.duplicated} mis ${rel.misrouted} other ${ph.otherCpuS}`;
  }
  if (d.leave) line += ` leave ${d.leave.chatEndedToPartner}/${d.leave.leaves} p50/p99 ${d.leave.latencyMs?.p50}/${d.leave.latencyMs?.p99}`;
  if (d.match) line += ` match ${d.match.matched ?? ''} bad ${d.match.badRooms} twice ${d.match.doubleMatched}`;
  const m = j.match;
  if (m && m.match) {
    const mp = (m.cpu?.phases ?? []).find((p) => p.phase === 'matched');
    let redis = 0, pg = 0, nodes = 0;
    if (mp) {
      for (const [k, v] of Object.entries(mp.perProcessCpuS)) {
        if (k.startsWith('redis')) redis += v ?? 0;
        else if (k.startsWith('pg')) pg += v ?? 0;
        else nodes += v ?? 0;
      }
    }
    const joins = m.match.joins;
    const pj = (s) => r1((s * 1e6) / joins);
    line += ` STORM p50/p99 ${m.match.latencyMs?.p50}/${m.match.latencyMs?.p99} matched ${m.match.matched} bad ${m.match.badRooms} twice ${m.match.doubleMatched} per join ${pj(redis + pg + nodes)} µs (nodes ${pj(nodes)} / redis ${pj(redis)} / pg ${pj(pg)}) other ${mp?.otherCpuS}`;
  }
  console.log(line);
}
