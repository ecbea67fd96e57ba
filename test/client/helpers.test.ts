// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { DEFAULT_API_BASE_URL, formatCardNumber, isSafeRedirectUrl, luhnCheck, parseExpiry, sessionIdFromClientSecret, TEST_CARDS, validateCard } from '@/packages/client';

describe('sessionIdFromClientSecret', () => {
  it('maps cs_<env>_…_secret_… to the session id', () => {
    expect(sessionIdFromClientSecret('cs_test_a1B2c3D4e5F6g7H8i9J0k1L2_secret_Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2')).toBe('cs_test_a1B2c3D4e5F6g7H8i9J0k1L2');
    expect(sessionIdFromClientSecret('cs_live_abcdefghijklmnopqrstuvwx_secret_abc')).toBe('cs_live_abcdefghijklmnopqrstuvwx');
  });

  it('anything else → null', () => {
    for (const value of ['', 'cs_test_abc', 'cs_test_abc_secret_', '_secret_abc', 'pi_test_abc_secret_abc', 'cs_prod_abc_secret_abc', ' cs_test_abc_secret_abc', 'cs_test_abc_secret_a b']) {
      expect(sessionIdFromClientSecret(value)).toBeNull();
    }
    expect(sessionIdFromClientSecret(undefined as unknown as string)).toBeNull();
  });
});

describe('isSafeRedirectUrl', () => {
  it('true only for absolute http(s) URLs', () => {
    expect(isSafeRedirectUrl('https://shop.example/thanks?x=1')).toBe(true);
    expect(isSafeRedirectUrl('http://localhost:3000/checkout/cs_test_x')).toBe(true);
    expect(isSafeRedirectUrl('HTTPS://SHOP.EXAMPLE/')).toBe(true);
  });

  it('javascript:, data:, other schemes, relative and protocol-relative URLs, non-strings → false', () => {
    for (const value of [
      'javascript:alert(1)',
      ' JavaScript:alert(1)',
      'java\tscript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'vbscript:msgbox(1)',
      'file:///etc/passwd',
      'ftp://example.com/',
      '/checkout/cs_test_x',
      '//evil.example/x',
      'checkout',
      '',
    ]) {
      expect(isSafeRedirectUrl(value), value).toBe(false);
    }
    expect(isSafeRedirectUrl(null)).toBe(false);
    expect(isSafeRedirectUrl(42)).toBe(false);
  });
});

describe('card helpers', () => {
  it('formatCardNumber: digits only, groups of four, at most 19 digits; American Express 4-6-5', () => {
    expect(formatCardNumber('4242424242424242')).toBe('4242 4242 4242 4242');
    expect(formatCardNumber('4242-4242 42a42')).toBe('4242 4242 4242');
    expect(formatCardNumber('42424')).toBe('4242 4');
    expect(formatCardNumber('4242')).toBe('4242');
    expect(formatCardNumber('')).toBe('');
    expect(formatCardNumber('1234567890123456789012')).toBe('1234 5678 9012 3456 789');
    expect(formatCardNumber('378282246310005')).toBe('3782 822463 10005');
  });

  it('luhnCheck: the checksum over the digits; spaces and dashes allowed; letters, too short → false', () => {
    expect(luhnCheck('4242424242424242')).toBe(true);
    expect(luhnCheck('4242 4242 4242 4242')).toBe(true);
    expect(luhnCheck('4000-0000-0000-0002')).toBe(true);
    expect(luhnCheck('4242424242424241')).toBe(false);
    expect(luhnCheck('4242x4242424242424')).toBe(false);
    expect(luhnCheck('0')).toBe(false);
    expect(luhnCheck('')).toBe(false);
  });

  it('parseExpiry: MM/YY, MM / YY, MM/YYYY, MMYY → { month, year }; invalid months and shapes → null', () => {
    expect(parseExpiry('12/34')).toEqual({ month: 12, year: 2034 });
    expect(parseExpiry('01 / 30')).toEqual({ month: 1, year: 2030 });
    expect(parseExpiry('1/30')).toEqual({ month: 1, year: 2030 });
    expect(parseExpiry('06/2031')).toEqual({ month: 6, year: 2031 });
    expect(parseExpiry('0631')).toEqual({ month: 6, year: 2031 });
    for (const value of ['13/30', '00/30', '12', '12/3', '130', 'ab/cd', '12/345', '']) expect(parseExpiry(value), value).toBeNull();
  });

  it('validateCard: the service’s codes per field; a card valid today passes', () => {
    const now = new Date(2026, 10, 22);
    expect(validateCard({ number: '4242 4242 4242 4242', expiry: '11/26', cvc: '123' }, now)).toEqual({ valid: true, errors: {} });
    expect(validateCard({ number: '4242 4242 4242 4242', expiry: '12/34', cvc: '1234' }, now).valid).toBe(true);
    const invalid = validateCard({ number: '4242 4242 4242 4241', expiry: '10/26', cvc: '12' }, now);
    expect(invalid.valid).toBe(false);
    expect(invalid.errors).toEqual({
      card_number: { code: 'invalid_card_number', message: expect.any(String) },
      expiry: { code: 'expired_card', message: expect.any(String) },
      cvc: { code: 'invalid_cvc', message: expect.any(String) },
    });
    expect(validateCard({ number: '42', expiry: '13/30', cvc: 'abc' }, now).errors).toMatchObject({
      card_number: { code: 'invalid_card_number' },
      expiry: { code: 'invalid_expiry' },
      cvc: { code: 'invalid_cvc' },
    });
    // Luhn-valid but 20 digits.
    expect(validateCard({ number: '42424242424242424242', expiry: '12/34', cvc: '123' }, now).errors.card_number?.code).toBe('invalid_card_number');
  });
});

describe('constants', () => {
  it('TEST_CARDS: APPROVED 4242…, DECLINED 4000…0002, both Luhn-valid', () => {
    expect(TEST_CARDS).toEqual({ APPROVED: '4242424242424242', DECLINED: '4000000000000002' });
    expect(luhnCheck(TEST_CARDS.APPROVED) && luhnCheck(TEST_CARDS.DECLINED)).toBe(true);
    expect(formatCardNumber(TEST_CARDS.DECLINED)).toBe('4000 0000 0000 0002');
  });

  it('DEFAULT_API_BASE_URL is the origin of a local npm start', () => {
    expect(DEFAULT_API_BASE_URL).toBe('http://localhost:3000');
  });
});
