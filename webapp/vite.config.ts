import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath, URL } from 'node:url';
import react from '@vitejs/plugin-react';
import type { Plugin, ProxyOptions } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';
import { defineConfig } from 'vitest/config';

const backend = process.env.TELEPATHY_DEV_BACKEND ?? 'http://127.0.0.1:8080';

/**
 * The server refuses state changes and sockets from origins other than its own. Through the dev
 * proxy the browser's origin is the Vite server's, so the proxy presents the backend's instead.
 */
function toBackend(ws: boolean): ProxyOptions {
  return {
    target: backend,
    ws,
    configure: (proxy) => {
      proxy.on('proxyReq', (request) => {
        if (request.getHeader('origin')) request.setHeader('origin', backend);
      });
      proxy.on('proxyReqWs', (request) => {
        if (request.getHeader('origin')) request.setHeader('origin', backend);
      });
    },
  };
}

const proxy = { '/api': toBackend(false), '/ws': toBackend(true) };

/**
 * sonner adds its stylesheet to the page as an inline <style> element, which the server's
 * Content-Security-Policy (style-src 'self') refuses. The build drops that call; src/main.tsx
 * imports the same rules from sonner's own CSS file instead. Fails the build if sonner changes.
 */
function sonnerStylesheetAsFile(): Plugin {
  return {
    name: 'sonner-stylesheet-as-file',
    apply: 'build',
    transform(code, id) {
      if (!/[\\/]node_modules[\\/]sonner[\\/]dist[\\/]index\.m?js$/.test(id)) return null;
      const dropped = code.replace(/^__insertCSS\(".*"\);$/m, '');
      if (dropped === code) this.error('sonner no longer injects its stylesheet as __insertCSS("…")');
      return { code: dropped, map: null };
    },
  };
}

/**
 * The opening bell's part of the service worker (public/push-sw.js), imported by the generated
 * worker rather than replacing it with a hand-written one (injectManifest): the caching below
 * stays Workbox's, generated and unchanged, and the bell is three listeners that know nothing of
 * it. The file's hash in the URL changes sw.js whenever the bell's script changes, so browsers
 * install the new worker even where they compare only the main script.
 */
const pushWorker = `/push-sw.js?v=${createHash('sha256')
  .update(readFileSync(new URL('./public/push-sw.js', import.meta.url)))
  .digest('hex')
  .slice(0, 12)}`;

/**
 * The installable app: the manifest, and a service worker (Workbox) that precaches the app
 * shell so the installed app opens at once and, offline, still opens and says so in Korean
 * (`OfflineNotice`). Navigations fall back to the shell; the API, the socket, /metrics and the
 * health checks are never cached or served from the worker. The worker also shows the opening
 * bell's notifications (`pushWorker`).
 */
const pwa = VitePWA({
  registerType: 'autoUpdate',
  injectRegister: null,
  includeAssets: ['favicon.svg', 'icons/apple-touch-icon.png'],
  manifest: {
    id: '/main',
    name: '텔레파시',
    short_name: '텔레파시',
    description: '같은 단어를 고른 사람과 익명으로 연결되는 대화 서비스',
    lang: 'ko',
    dir: 'ltr',
    start_url: '/main',
    scope: '/',
    display: 'standalone',
    orientation: 'portrait',
    // The default theme's (src/lib/theme.ts); the page's theme-color follows the date's theme.
    theme_color: '#6d28d9',
    background_color: '#f6f4fe',
    categories: ['social', 'entertainment'],
    icons: [
      { src: '/icons/icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
      { src: '/icons/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any' },
      { src: '/icons/icon-maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
    ],
  },
  workbox: {
    // The shell: scripts, styles, icons. The operations console is not the user's app; the
    // font's many subsets are cached as pages use them (below) rather than all up front.
    globPatterns: ['**/*.{js,css,html,svg,png}'],
    // The bell's script is loaded by the worker itself, never by a page.
    globIgnores: ['**/admin-app-*', 'push-sw.js'],
    importScripts: [pushWorker],
    navigateFallback: '/index.html',
    navigateFallbackDenylist: [/^\/api\//, /^\/ws/, /^\/metrics/, /^\/healthz/, /^\/readyz/],
    // Hashed font files only; the API and the socket are never cached.
    runtimeCaching: [
      {
        urlPattern: ({ url, sameOrigin }) => sameOrigin && url.pathname.startsWith('/assets/') && url.pathname.endsWith('.woff2'),
        handler: 'CacheFirst',
        options: { cacheName: 'fonts', expiration: { maxEntries: 120 } },
      },
    ],
    cleanupOutdatedCaches: true,
    maximumFileSizeToCacheInBytes: 3 * 1024 * 1024,
  },
});

export default defineConfig({
  plugins: [react(), sonnerStylesheetAsFile(), pwa],
  resolve: {
    alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) },
  },
  server: { proxy },
  preview: { proxy },
  build: {
    // The font subsets are many small woff2 files; keep them as files, not inlined data URLs.
    assetsInlineLimit: 0,
  },
  test: {
    environment: 'jsdom',
    setupFiles: ['./src/test/setup.ts'],
    include: ['src/**/*.test.{ts,tsx}'],
    css: false,
    // One file per core: Vitest's default leaves a core free, which on a two-core machine
    // runs the files one at a time (112 s against 72 s here; most of it each file's jsdom).
    maxWorkers: availableParallelism(),
  },
});
