import { describe, expect, it } from 'vitest';
import { seal, unseal } from '@/server/kit/sealed';

/** Sealed secrets (a TOTP secret at rest, a secret on its way to the page that shows it once). */
describe('seal', () => {
  const sealed = seal('auth secret', 'dashboard reveal', 'user_a:api_key', 'sk_test_secret');

  it('opens with the same secret, label and binding only', () => {
    expect(sealed).not.toContain('sk_test_secret');
    expect(unseal('auth secret', 'dashboard reveal', 'user_a:api_key', sealed)).toBe('sk_test_secret');
    expect(unseal('auth secret', 'dashboard reveal', 'user_b:api_key', sealed)).toBeUndefined();
    expect(unseal('auth secret', 'dashboard reveal', 'user_a:backup_codes', sealed)).toBeUndefined();
    expect(unseal('auth secret', 'totp secret', 'user_a:api_key', sealed)).toBeUndefined();
    expect(unseal('another auth secret', 'dashboard reveal', 'user_a:api_key', sealed)).toBeUndefined();
  });

  it('refuses a tampered or malformed value', () => {
    const [version, iv, text, tag] = sealed.split('.');
    const flipped = `${text!.startsWith('A') ? 'B' : 'A'}${text!.slice(1)}`;
    expect(unseal('auth secret', 'dashboard reveal', 'user_a:api_key', [version, iv, flipped, tag].join('.'))).toBeUndefined();
    expect(unseal('auth secret', 'dashboard reveal', 'user_a:api_key', [version, iv, text].join('.'))).toBeUndefined();
    expect(unseal('auth secret', 'dashboard reveal', 'user_a:api_key', `${sealed}.extra`)).toBeUndefined();
    expect(unseal('auth secret', 'dashboard reveal', 'user_a:api_key', 'garbage')).toBeUndefined();
  });

  it('never seals the same text twice alike', () => {
    expect(seal('auth secret', 'dashboard reveal', 'user_a:api_key', 'sk_test_secret')).not.toBe(sealed);
  });
});
