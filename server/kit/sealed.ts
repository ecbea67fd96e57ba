/**
 * Secrets the service must read back (a TOTP secret, a key shown once after a redirect) are
 * sealed with AES-256-GCM under a key derived from AUTH_SECRET by HKDF with the use's own label,
 * so no two uses share a key and the raw secret signs nothing. `boundTo` (e.g. the person's id)
 * is authenticated with the text, so a sealed value copied to another row or person never opens.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';

function sealingKey(secret: string, label: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, '', `payments-service ${label} v1`, 32));
}

export function seal(secret: string, label: string, boundTo: string, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(secret, label), iv).setAAD(Buffer.from(boundTo));
  const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [VERSION, iv.toString('base64url'), sealed.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
}

/** The plaintext, or undefined for anything that does not open (malformed, tampered, another key or binding). */
export function unseal(secret: string, label: string, boundTo: string, sealed: string): string | undefined {
  const [version, iv, text, tag, extra] = sealed.split('.');
  if (version !== VERSION || !iv || !text || !tag || extra !== undefined) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', sealingKey(secret, label), Buffer.from(iv, 'base64url')).setAAD(Buffer.from(boundTo));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(text, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
