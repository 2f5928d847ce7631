// Fails when src/api/schema.d.ts is not what openapi-typescript generates from ../openapi/openapi.json.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const committed = path.join(root, 'src/api/schema.d.ts');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'telepathy-schema-'));
const fresh = path.join(dir, 'schema.d.ts');

try {
  execFileSync(
    process.execPath,
    [path.join(root, 'node_modules/openapi-typescript/bin/cli.js'), path.join(root, '../openapi/openapi.json'), '-o', fresh],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const same = fs.existsSync(committed) && fs.readFileSync(committed, 'utf8') === fs.readFileSync(fresh, 'utf8');
  if (!same) {
    console.error('src/api/schema.d.ts is not up to date with openapi/openapi.json: run `npm run gen:api`.');
    process.exitCode = 1;
  } else {
    console.log('src/api/schema.d.ts is up to date.');
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
