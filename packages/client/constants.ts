/**
 * Where the service answers when `loadService` is given no `apiBaseUrl`: the origin a local
 * `npm start` serves (PUBLIC_BASE_URL's default). The service is self-hosted, so no public origin
 * is universal: pages in production pass `apiBaseUrl` (HTTPS; live keys require it).
 */
export const DEFAULT_API_BASE_URL = 'http://localhost:3000';

/** The fixed test-mode cards (any future expiry, any 3-digit CVC). */
export const TEST_CARDS = {
  APPROVED: '4242424242424242',
  DECLINED: '4000000000000002',
} as const;
