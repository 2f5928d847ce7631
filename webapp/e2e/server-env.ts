import { spawn } from 'node:child_process';
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
export const serverDatabaseUrl = databaseUrl('e2e');

/** The debug server binary, wherever cargo puts its target folder. */
export const serverBinary = path.join(process.env.CARGO_TARGET_DIR ?? path.join(webappDir, '../target'), 'debug/telepathy');

/** A database of its own in the run's folder, for a test that starts a server of its own. */
export function databaseUrl(name: string): string {
  return `sqlite://${dataDir()}/${name}.db?mode=rwc`;
}

export interface StartedServer {
  origin: string;
  stop: () => Promise<void>;
}

/**
 * Starts another server on `port` with the environment of the config's server, changed by
 * `env` (a fresh database named `name`), and waits until it answers. Its log goes to
 * `<name>.log` in the run's folder.
 */
export async function startServer(name: string, port: number, env: Record<string, string>): Promise<StartedServer> {
  const origin = `http://127.0.0.1:${port}`;
  const log = fs.openSync(path.join(dataDir(), `${name}.log`), 'a');
  const child = spawn(serverBinary, [], {
    cwd: webappDir,
    env: {
      ...process.env,
      TELEPATHY_LISTEN: `127.0.0.1:${port}`,
      DATABASE_URL: databaseUrl(name),
      TELEPATHY_DEMO: 'true',
      TELEPATHY_STATIC_DIR: path.join(webappDir, 'dist'),
      TELEPATHY_PUBLIC_ORIGIN: origin,
      TELEPATHY_LOG_FORMAT: 'json',
      TELEPATHY_TRUSTED_PROXIES: '1',
      ...env,
    },
    stdio: ['ignore', log, log],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    fs.closeSync(log);
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the ${name} server exited with ${child.exitCode}; see ${name}.log in ${dataDir()}`);
    try {
      const response = await fetch(`${origin}/api/app-config`);
      if (response.ok) return { origin, stop };
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the ${name} server did not answer within 60 s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
