import os from 'node:os';
import path from 'node:path';

/**
 * Where the browser tests' server writes its log (JSON lines). The demo SMS provider logs
 * every code it "sends"; password-reset codes are shown nowhere else, so the tests read
 * them here. The path is fixed: the config and the test workers compute it apart.
 */
export const serverLogPath = path.join(os.tmpdir(), 'telepathy-e2e-server.log');
