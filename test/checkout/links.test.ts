import { describe, expect, it } from 'vitest';
import { appendQuery, paidRedirectUrl } from '@/server/kit/links';
import { subscribedRedirectUrl } from '@/server/subscriptions/first-charge';

const config = { publicBaseUrl: 'https://pay.example', authSecret: 'links-test-secret' };

describe('return URLs: our parameters appended to the merchant’s', () => {
  it('the merchant’s query is kept byte for byte, a #fragment stays last', () => {
    expect(appendQuery('https://shop.example/thanks?next=/orders/7&note=a%20b&flag&sig=Ab~c*', { session_id: 'cs_test_1' })).toBe(
      'https://shop.example/thanks?next=/orders/7&note=a%20b&flag&sig=Ab~c*&session_id=cs_test_1',
    );
    expect(appendQuery('https://shop.example/thanks?ref=mail#top', { session_id: 'cs_test_1' })).toBe('https://shop.example/thanks?ref=mail&session_id=cs_test_1#top');
    expect(appendQuery('https://shop.example/thanks', { session_id: 'cs_test_1' })).toBe('https://shop.example/thanks?session_id=cs_test_1');
    expect(appendQuery('https://shop.example/thanks?', { session_id: 'cs_test_1' })).toBe('https://shop.example/thanks?session_id=cs_test_1');
  });

  it('checkout: session_id; subscription checkout: checkout_id and subscription_id', () => {
    expect(paidRedirectUrl(config, { id: 'cs_test_1', successUrl: 'https://shop.example/thanks?note=a%20b' })).toBe('https://shop.example/thanks?note=a%20b&session_id=cs_test_1');
    expect(subscribedRedirectUrl(config, { id: 'subchk_test_1', successUrl: 'https://shop.example/welcome?ref=7' }, 'sub_test_1')).toBe(
      'https://shop.example/welcome?ref=7&checkout_id=subchk_test_1&subscription_id=sub_test_1',
    );
  });

  it('without success_url: the signed receipt on the service origin', () => {
    expect(paidRedirectUrl(config, { id: 'cs_test_1', successUrl: null })).toMatch(/^https:\/\/pay\.example\/checkout\/cs_test_1\/receipt\?signature=/);
  });
});
