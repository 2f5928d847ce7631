import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local push service (RFC 8030) for the browser tests. Headless Chromium has no push
 * service of its own (its subscribe is refused), so the test hands the page a subscription
 * whose keys it holds, like a browser would; this service receives what the server pushes,
 * checks the VAPID token (RFC 8292) and decrypts the body (RFC 8291, `aes128gcm`), and the
 * test hands the plaintext to the service worker through the DevTools protocol, as the
 * browser would after decrypting.
 */

/** A subscription as a browser makes it, with the private key that decrypts its pushes. */
export interface BrowserSubscription {
  endpoint: string;
  p256dh: string;
  auth: string;
}

export interface ReceivedPush {
  payload: string;
  ttl: number;
  topic: string | undefined;
  urgency: string | undefined;
  /** The VAPID public key the push was signed with (base64url). */
  vapidKey: string;
}

export interface PushService {
  origin: string;
  subscribe(): BrowserSubscription;
  /** The pushes received so far. */
  received: ReceivedPush[];
  /** Why pushes were refused. */
  refused: string[];
  stop(): Promise<void>;
}

const b64url = (bytes: Buffer) => bytes.toString('base64url');

/** RFC 8291 §3.4 with RFC 8188's single record: salt | rs | idlen | keyid | ciphertext. */
export function decrypt(body: Buffer, ecdh: crypto.ECDH, auth: Buffer): string {
  const salt = body.subarray(0, 16);
  const idLength = body[20] ?? 0;
  const keyId = body.subarray(21, 21 + idLength);
  const sealed = body.subarray(21 + idLength);
  const shared = ecdh.computeSecret(keyId);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), ecdh.getPublicKey(), keyId]);
  const ikm = Buffer.from(crypto.hkdfSync('sha256', shared, auth, keyInfo, 32));
  const cek = Buffer.from(crypto.hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(crypto.hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  const decipher = crypto.createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(sealed.subarray(sealed.length - 16));
  const plain = Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - 16)), decipher.final()]);
  let end = plain.length - 1;
  while (end >= 0 && plain[end] === 0) end -= 1;
  if (plain[end] !== 2) throw new Error('the record is not marked last');
  return plain.subarray(0, end).toString('utf8');
}

/** RFC 8292: `vapid t=<JWT>, k=<key>`, signed by that key for `origin`, at most 24 h ahead. */
export function checkVapid(authorization: string, origin: string): string {
  const match = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(authorization);
  if (!match) throw new Error(`no VAPID authorization: ${authorization}`);
  const [, token = '', key = ''] = match;
  const [header = '', claims = '', signature = ''] = token.split('.');
  const raw = Buffer.from(key, 'base64url');
  const publicKey = crypto.createPublicKey({
    key: { kty: 'EC', crv: 'P-256', x: b64url(raw.subarray(1, 33)), y: b64url(raw.subarray(33, 65)) },
    format: 'jwk',
  });
  const signed = crypto.verify(
    'sha256',
    Buffer.from(`${header}.${claims}`),
    { key: publicKey, dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature, 'base64url'),
  );
  if (!signed) throw new Error('the VAPID signature does not verify');
  const body = JSON.parse(Buffer.from(claims, 'base64url').toString('utf8')) as { aud?: string; exp?: number; sub?: string };
  if (body.aud !== origin) throw new Error(`the VAPID audience is ${body.aud}, not ${origin}`);
  const now = Date.now() / 1000;
  if (!body.exp || body.exp < now || body.exp > now + 24 * 3600) throw new Error('the VAPID token expires out of bounds');
  if (!body.sub || !/^(mailto:|https:)/.test(body.sub)) throw new Error('the VAPID token names no contact');
  return key;
}

export async function startPushService(): Promise<PushService> {
  const keys = new Map<string, { ecdh: crypto.ECDH; auth: Buffer }>();
  const received: ReceivedPush[] = [];
  const refused: string[] = [];
  let origin = '';
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const id = (request.url ?? '').split('/').pop() ?? '';
      const subscriber = keys.get(id);
      if (request.method !== 'POST' || !subscriber) {
        response.writeHead(404).end();
        return;
      }
      try {
        const header = (name: string) => {
          const value = request.headers[name];
          return Array.isArray(value) ? value[0] : value;
        };
        if (header('content-encoding') !== 'aes128gcm') throw new Error('not aes128gcm');
        const ttl = Number(header('ttl'));
        if (!Number.isInteger(ttl)) throw new Error('no TTL');
        const vapidKey = checkVapid(header('authorization') ?? '', origin);
        const payload = decrypt(Buffer.concat(chunks), subscriber.ecdh, subscriber.auth);
        received.push({ payload, ttl, topic: header('topic'), urgency: header('urgency'), vapidKey });
        response.writeHead(201).end();
      } catch (error) {
        refused.push(String(error));
        response.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  let next = 0;
  return {
    origin,
    received,
    refused,
    subscribe() {
      next += 1;
      const ecdh = crypto.createECDH('prime256v1');
      ecdh.generateKeys();
      const auth = crypto.randomBytes(16);
      keys.set(String(next), { ecdh, auth });
      return { endpoint: `${origin}/push/${String(next)}`, p256dh: b64url(ecdh.getPublicKey()), auth: b64url(auth) };
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
