import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serverBinary } from './server-env';

const webappDir = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

/** The test PostgreSQL server and Redis, as the Rust suites use them. */
const postgresUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface Cluster {
  /** The origin of each node. */
  nodes: string[];
  stop: () => void;
}

async function ready(origin: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`node ${origin} exited with ${String(child.exitCode)}`);
    try {
      const response = await fetch(`${origin}/readyz`);
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`node ${origin} did not become ready`);
}

/**
 * Nodes of one cluster, as in production: real `telepathy` processes sharing Redis (a key
 * prefix of their own) and PostgreSQL (a schema of their own), in demo mode.
 */
export async function startCluster(ports: number[]): Promise<Cluster> {
  const name = `e2e_${Date.now().toString(36)}_${crypto.randomBytes(3).toString('hex')}`;
  execFileSync('psql', [postgresUrl, '-q', '-c', `CREATE SCHEMA ${name}`], { stdio: 'pipe' });
  const separator = postgresUrl.includes('?') ? '&' : '?';
  const databaseUrl = `${postgresUrl}${separator}options=-c%20search_path%3D${name}`;
  const origins = ports.map((port) => `http://127.0.0.1:${String(port)}`);
  const children = ports.map((port) =>
    spawn(serverBinary, ['serve'], {
      cwd: webappDir,
      stdio: 'ignore',
      env: {
        ...process.env,
        TELEPATHY_LISTEN: `127.0.0.1:${String(port)}`,
        DATABASE_URL: databaseUrl,
        REDIS_URL: redisUrl,
        TELEPATHY_REDIS_PREFIX: `${name}:`,
        TELEPATHY_DEMO: 'true',
        TELEPATHY_STATIC_DIR: path.join(webappDir, 'dist'),
        TELEPATHY_PUBLIC_ORIGIN: origins.join(','),
      },
    }),
  );
  const stop = () => {
    for (const child of children) child.kill('SIGKILL');
    try {
      execFileSync('psql', [postgresUrl, '-q', '-c', `DROP SCHEMA ${name} CASCADE`], { stdio: 'pipe' });
    } catch {
      // Left for the Rust suites' sweep of old schemas.
    }
  };
  try {
    // One node at a time: both would run the migrations at once.
    for (const [index, origin] of origins.entries()) {
      const child = children[index];
      if (child) await ready(origin, child);
    }
  } catch (error) {
    stop();
    throw error;
  }
  return { nodes: origins, stop };
}
