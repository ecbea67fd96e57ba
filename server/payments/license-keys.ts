import { randomBytes } from 'node:crypto';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/**
 * `LK-XXXXX-XXXXX-XXXXX-XXXXX`: 20 uppercase base32 characters, 100 bits from the
 * CSPRNG. 256 is a multiple of 32, so `byte & 31` keeps every character equally likely.
 */
export function generateLicenseKey(): string {
  const chars = Array.from(randomBytes(20), (byte) => BASE32[byte & 31]).join('');
  return `LK-${chars.slice(0, 5)}-${chars.slice(5, 10)}-${chars.slice(10, 15)}-${chars.slice(15, 20)}`;
}
