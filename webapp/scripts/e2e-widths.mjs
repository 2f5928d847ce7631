// Runs the browser tests at both widths side by side: one Playwright run per project, each
// with a server, ports and an output folder of its own. The tests spend most of their time
// waiting (rounds, timers, a partner's page), so two runs take about the time of one on a
// two-core machine. Each run's lines are prefixed with its width; exits non-zero if either
// run failed.
//
//   node scripts/e2e-widths.mjs [extra playwright arguments]
import { spawn } from 'node:child_process';
import readline from 'node:readline';

const base = Number(process.env.E2E_PORT ?? 18080);
// A test that starts servers of its own takes ports up to base + 22 (e2e/*.spec.ts).
const runs = [
  { project: 'mobile', port: base },
  { project: 'desktop', port: base + 100 },
];

function run({ project, port }) {
  const child = spawn(
    'npx',
    ['playwright', 'test', `--project=${project}`, `--output=test-results/${project}`, ...process.argv.slice(2)],
    { env: { ...process.env, E2E_PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  for (const stream of [child.stdout, child.stderr]) {
    readline.createInterface({ input: stream }).on('line', (line) => console.log(`[${project}] ${line}`));
  }
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ project, code: code ?? signal })));
}

const results = await Promise.all(runs.map(run));
const failed = results.filter((r) => r.code !== 0);
for (const r of failed) console.error(`browser tests at the ${r.project} width failed (${String(r.code)})`);
process.exit(failed.length > 0 ? 1 : 0);
