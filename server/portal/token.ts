/**
 * The portal link's token: 256 random bits as 43 base64url characters, which is
 * itself the credential for the page. Only its SHA-256 is looked up and kept.
 *
 * An idempotent replay must hand back the same URL while the link is active, which
 * a hash cannot give. So, only when the create carries an `Idempotency-Key`, the token is also
 * kept encrypted (AES-256-GCM, key derived from AUTH_SECRET with HKDF, the session id as
 * associated data so a ciphertext cannot be moved to another row). A database dump alone opens
 * no portal; the column is cleared when the session is revoked.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { signingSecret } from '../kit/links';
import { sha256Hex } from '../ids';

export const PORTAL_TOKEN_LENGTH = 43;
const TOKEN_FORMAT = /^[A-Za-z0-9_-]{43}$/;

export function newPortalToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Anything that is not 43 base64url characters is never looked up. */
export function isPortalTokenFormat(token: string): boolean {
  return TOKEN_FORMAT.test(token);
}

export function portalTokenHash(token: string): string {
  return sha256Hex(token);
}

export function portalUrl(publicBaseUrl: string, token: string): string {
  return `${publicBaseUrl}/portal/${token}`;
}

function encryptionKey(config: { authSecret: string | undefined }): Buffer {
  return Buffer.from(hkdfSync('sha256', signingSecret(config), 'payments-service', 'portal-token-encryption', 32));
}

/** `<iv>.<ciphertext>.<tag>`, each base64url. */
export function encryptPortalToken(config: { authSecret: string | undefined }, sessionId: string, token: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', encryptionKey(config), iv);
  cipher.setAAD(Buffer.from(sessionId));
  const ciphertext = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
  return [iv, ciphertext, cipher.getAuthTag()].map((part) => part.toString('base64url')).join('.');
}

/** The token again, or undefined when the ciphertext does not open under this key and session. */
export function decryptPortalToken(config: { authSecret: string | undefined }, sessionId: string, sealed: string): string | undefined {
  const [iv, ciphertext, tag] = sealed.split('.').map((part) => Buffer.from(part, 'base64url'));
  if (!iv || !ciphertext || !tag) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', encryptionKey(config), iv);
    decipher.setAAD(Buffer.from(sessionId));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
