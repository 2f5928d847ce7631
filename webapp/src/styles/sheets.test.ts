import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import postcss from 'postcss';
import { describe, expect, it } from 'vitest';

const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function sheets(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sheets(full);
    return entry.name.endsWith('.css') ? [full] : [];
  });
}

// The build joins every sheet into one file: a block left open in one (a lost `}` at the
// end of a media query) swallows the sheets after it into that block, and the build says
// nothing. Each sheet must stand on its own.
describe('stylesheets', () => {
  const files = sheets(src);

  it('are found', () => {
    expect(files.length).toBeGreaterThan(10);
  });

  it.each(files.map((file) => [path.relative(src, file), file]))('%s closes every block it opens', (_name, file) => {
    expect(() => postcss.parse(readFileSync(file, 'utf8'), { from: file })).not.toThrow();
  });

  it('a block left open is caught', () => {
    expect(() => postcss.parse('@media (min-width: 1024px) {\n  .a { color: red; }\n')).toThrow(/Unclosed block/);
  });
});
