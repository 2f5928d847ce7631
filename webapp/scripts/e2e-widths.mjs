// Runs the browser tests at both widths side by side, each width's tests in `E2E_SHARDS`
// Playwright runs (1 unless said), each run with a server, ports and an output folder of
// its own. On a two-core machine the two widths fill both cores (Chromium's compositor and
// the pages, more than the waits): more runs only help where there are more cores. Each
// run's lines are prefixed with its width (and part); exits non-zero if any run failed.
//
//   node scripts/e2e-widths.mjs [extra playwright arguments]
import { spawn } from 'node:child_process';
import readline from 'node:readline';

const base = Number(process.env.E2E_PORT ?? 18080);
const shards = Number(process.env.E2E_SHARDS ?? 1);
// A test that starts servers of its own takes ports up to base + 22 (e2e/*.spec.ts).
const runs = ['mobile', 'desktop'].flatMap((project, p) =>
  Array.from({ length: shards }, (_, s) => ({ project, shard: s + 1, port: base + 100 * (p * shards + s) })),
);

function run({ project, shard, port }) {
  const split = shards > 1;
  const name = split ? `${project} ${String(shard)}/${String(shards)}` : project;
  const part = split ? [`--shard=${String(shard)}/${String(shards)}`] : [];
  const output = split ? `test-results/${project}-${String(shard)}` : `test-results/${project}`;
  const child = spawn(
    'npx',
    ['playwright', 'test', `--project=${project}`, ...part, `--output=${output}`, ...process.argv.slice(2)],
    { env: { ...process.env, E2E_PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  for (const stream of [child.stdout, child.stderr]) {
    readline.createInterface({ input: stream }).on('line', (line) => console.log(`[${name}] ${line}`));
  }
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ name, code: code ?? signal })));
}

const results = await Promise.all(runs.map(run));
const failed = results.filter((r) => r.code !== 0);
for (const r of failed) console.error(`browser tests of ${r.name} failed (${String(r.code)})`);
process.exit(failed.length > 0 ? 1 : 0);
