import os from 'node:os';
import path from 'node:path';

/**
 * Where the browser tests' server writes its log (JSON lines). The demo SMS provider logs
 * every code it "sends"; password-reset codes are shown nowhere else, so the tests read
 * them here. The config and the test workers compute the path apart, from the port they
 * inherit: two runs side by side (one per width) keep their logs apart.
 */
export const serverLogPath = path.join(os.tmpdir(), `telepathy-e2e-server-${process.env.E2E_PORT ?? '18080'}.log`);
