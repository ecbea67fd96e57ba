import { ApiError } from '@/server/errors';

/** A service's refusal as the page's `?error=` code, from the action's table of API codes; anything else is unexpected and rethrown (a 500). */
export function refusalCode(error: unknown, codes: Record<string, string>): string {
  if (error instanceof ApiError && Object.hasOwn(codes, error.code)) return codes[error.code]!;
  throw error;
}
