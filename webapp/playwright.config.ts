import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, devices } from '@playwright/test';
import { serverBinary, serverDatabaseUrl } from './e2e/server-env';
import { serverLogPath } from './e2e/server-log';

const webappDir = path.dirname(fileURLToPath(import.meta.url));
const port = Number(process.env.E2E_PORT ?? 18080);
const origin = `http://127.0.0.1:${port}`;

const chromium = {
  executablePath: '/usr/bin/chromium',
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    // Without SwiftShader's software GL the compositor spends less: 7 % of the browser
    // tests' CPU on this machine, where the two widths side by side fill both cores.
    '--disable-software-rasterizer',
  ],
};

export default defineConfig({
  testDir: './e2e',
  fullyParallel: false,
  workers: 1,
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  reporter: process.env.CI ? 'line' : 'list',
  timeout: 30_000,
  use: {
    baseURL: origin,
    headless: true,
    locale: 'ko-KR',
    timezoneId: 'Asia/Seoul',
    trace: 'retain-on-failure',
    // The app honours reduced motion (base.css): without it, the main page's endless
    // animations keep every open page of headless Chromium painting, most of the browser
    // tests' CPU. No test looks at an animation.
    reducedMotion: 'reduce',
    launchOptions: chromium,
  },
  projects: [
    {
      name: 'mobile',
      use: { ...devices['Desktop Chrome'], viewport: { width: 390, height: 844 }, isMobile: false, hasTouch: true, launchOptions: chromium },
    },
    {
      name: 'desktop',
      use: { ...devices['Desktop Chrome'], viewport: { width: 1280, height: 800 }, launchOptions: chromium },
    },
  ],
  webServer: {
    // Through the shell, to keep the log: the tests read password-reset codes from it.
    command: `exec "${serverBinary}" > "${serverLogPath}"`,
    cwd: webappDir,
    url: `${origin}/api/app-config`,
    reuseExistingServer: false,
    timeout: 60_000,
    stdout: 'ignore',
    stderr: 'pipe',
    env: {
      TELEPATHY_LISTEN: `127.0.0.1:${port}`,
      // A fresh database for every run (e2e/server-env.ts).
      DATABASE_URL: serverDatabaseUrl,
      TELEPATHY_DEMO: 'true',
      TELEPATHY_STATIC_DIR: path.join(webappDir, 'dist'),
      TELEPATHY_PUBLIC_ORIGIN: origin,
      TELEPATHY_LOG_FORMAT: 'json',
      // Word-set transfers are confirmed as a bank would: by an operator (or the deposit
      // notification), not by demo mode after a few seconds.
      TELEPATHY_DEMO_TRANSFER_SECONDS: '0',
      // Members signed up through the API each come from an address of their own
      // (`signUpByApi`), as behind a load balancer.
      TELEPATHY_TRUSTED_PROXIES: '1',
    },
  },
});
