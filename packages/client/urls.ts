const CLIENT_SECRET = /^(cs_(?:test|live)_[0-9A-Za-z]+)_secret_[0-9A-Za-z]+$/;

/** `cs_<env>_…_secret_…` → `cs_<env>_…`; null for anything else. */
export function sessionIdFromClientSecret(secret: string): string | null {
  if (typeof secret !== 'string') return null;
  return CLIENT_SECRET.exec(secret)?.[1] ?? null;
}

function parseAbsolute(url: unknown): URL | null {
  if (typeof url !== 'string' && !(url instanceof URL)) return null;
  try {
    // No base: a relative URL throws, so only absolute URLs pass.
    return new URL(url);
  } catch {
    return null;
  }
}

/** True only for absolute http(s) URLs (never `javascript:`, `data:`, relative paths). */
export function isSafeRedirectUrl(url: unknown): boolean {
  const parsed = parseAbsolute(url);
  return parsed !== null && (parsed.protocol === 'https:' || parsed.protocol === 'http:');
}

export function isHttpsUrl(url: unknown): boolean {
  return parseAbsolute(url)?.protocol === 'https:';
}
