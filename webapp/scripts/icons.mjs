// Renders the app icons of the web app manifest from the brand mark (public/favicon.svg) in
// Debian's Chromium: public/icons/icon-{192,512}.png, a maskable 512 (the mark inside the
// safe zone on a full-bleed background), the 180 px apple-touch-icon, and the notifications'
// badge (96 px, the glyph alone in white on transparent: Android draws only its alpha).
// Run after changing the mark: node scripts/icons.mjs
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const webappDir = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const mark = fs.readFileSync(path.join(webappDir, 'public/favicon.svg'), 'utf8');
const outDir = path.join(webappDir, 'public/icons');
fs.mkdirSync(outDir, { recursive: true });

const plain = (size) => `<div style="width:${size}px;height:${size}px">${mark.replace('<svg ', `<svg width="${size}" height="${size}" `)}</div>`;
// Maskable: the launcher may cut the icon to a circle of 80 % of its width.
const maskable = (size) => {
  const inner = Math.round(size * 0.8);
  const glyph = mark.replace(/<rect[^>]*\/>/, '').replace('<svg ', `<svg width="${inner}" height="${inner}" `);
  return `<div style="width:${size}px;height:${size}px;display:grid;place-items:center;background:linear-gradient(135deg,#8b5cf6,#4f46e5)">${glyph}</div>`;
};

// Badge: the glyph without its background, filling the icon (the status bar shows it small).
const badge = (size) => {
  const glyph = mark.replace(/<rect[^>]*\/>/, '').replace('viewBox="0 0 64 64"', 'viewBox="10 10 44 44"').replace('<svg ', `<svg width="${size}" height="${size}" `);
  return `<div style="width:${size}px;height:${size}px">${glyph}</div>`;
};

const icons = [
  ['icon-192.png', 192, plain],
  ['icon-512.png', 512, plain],
  ['icon-maskable-512.png', 512, maskable],
  ['apple-touch-icon.png', 180, maskable],
  ['badge-96.png', 96, badge],
];

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
const page = await browser.newPage({ viewport: { width: 512, height: 512 } });
for (const [name, size, draw] of icons) {
  await page.setContent(`<html><body style="margin:0;background:transparent">${draw(size)}</body></html>`);
  await page.locator('body > div').screenshot({ path: path.join(outDir, name), omitBackground: true });
}
await browser.close();
console.log(`${icons.length} icons in ${outDir}`);
