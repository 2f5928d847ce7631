import { fileURLToPath, URL } from 'node:url';
import react from '@vitejs/plugin-react';
import type { Plugin, ProxyOptions } from 'vite';
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

export default defineConfig({
  plugins: [react(), sonnerStylesheetAsFile()],
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
