import { expect } from 'vitest';
import type { TestApi } from '../support/server';
import type { Seed } from './factories';

export const SESSIONS = '/api/v1/portal/sessions';
export const PUBLIC_BASE_URL = 'https://pay.example.test';
/** `<PUBLIC_BASE_URL>/portal/<43 base64url characters>`. */
export const PORTAL_URL = /^https:\/\/pay\.example\.test\/portal\/[A-Za-z0-9_-]{43}$/;

export const seedOf = (api: TestApi): Seed => ({ db: api.services.db, now: api.clock.now() });

export function createPortal(api: TestApi, key: string, body: unknown, headers: Record<string, string> = {}) {
  return api.request('POST', SESSIONS, { key, body, headers });
}

/** POST /portal/sessions that must answer 201; returns the session. */
export async function createdPortal(api: TestApi, key: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await createPortal(api, key, body, headers);
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body;
}

export const tokenOf = (url: string) => url.slice(url.lastIndexOf('/') + 1);
