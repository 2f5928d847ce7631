import { fileURLToPath, URL } from 'node:url';
import react from '@vitejs/plugin-react';
import type { ProxyOptions } from 'vite';
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

export default defineConfig({
  plugins: [react()],
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
  },
});
