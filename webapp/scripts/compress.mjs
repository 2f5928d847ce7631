// Writes a Brotli (.br) and a gzip (.gz) copy beside each text file of the build's hashed
// assets, at the best levels: a node serves them as they are (crates/server/src/web.rs),
// compressing nothing per request. Files too small to gain are left alone.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

const assets = path.join(path.dirname(path.dirname(fileURLToPath(import.meta.url))), 'dist', 'assets');
const TEXT = /\.(js|mjs|css|svg|json|map|txt|html)$/;
const MIN_BYTES = 1024;

let before = 0;
let after = 0;
for (const name of fs.readdirSync(assets)) {
  if (!TEXT.test(name)) continue;
  const file = path.join(assets, name);
  const data = fs.readFileSync(file);
  if (data.length < MIN_BYTES) continue;
  const br = zlib.brotliCompressSync(data, {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: data.length,
    },
  });
  fs.writeFileSync(`${file}.br`, br);
  fs.writeFileSync(`${file}.gz`, zlib.gzipSync(data, { level: zlib.constants.Z_BEST_COMPRESSION }));
  before += data.length;
  after += br.length;
}
console.log(`compressed assets: ${(before / 1024).toFixed(0)} KB of text, ${(after / 1024).toFixed(0)} KB as Brotli`);
