import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const webappDir = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

/**
 * The folder of the browser tests' server data, fresh for every run so tests never see each
 * other's accounts. The config makes it; the test workers load the config again in processes
 * of their own, and find it through the environment they inherit.
 */
function dataDir(): string {
  const known = process.env.TELEPATHY_E2E_DATA_DIR;
  if (known) return known;
  const made = fs.mkdtempSync(path.join(os.tmpdir(), 'telepathy-e2e-'));
  process.env.TELEPATHY_E2E_DATA_DIR = made;
  return made;
}

/** The database of the server the tests run against: the config starts it there, `telepathy operator` writes there. */
export const serverDatabaseUrl = `sqlite://${dataDir()}/e2e.db?mode=rwc`;

/** The debug server binary, wherever cargo puts its target folder. */
export const serverBinary = path.join(process.env.CARGO_TARGET_DIR ?? path.join(webappDir, '../target'), 'debug/telepathy');
