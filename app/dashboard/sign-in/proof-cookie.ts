import { cookies } from 'next/headers';

/**
 * The proof of a right password awaiting its code (server/users/service.ts signInProof): HttpOnly
 * and sent only to the sign-in page, whose form actions post there.
 */
export const SIGN_IN_PROOF_COOKIE = { name: 'dash_sign_in_proof', path: '/dashboard/sign-in' } as const;

/** Whether a password's proof awaits its code (the sign-in page then asks for it). */
export async function awaitingCode(): Promise<boolean> {
  return (await cookies()).has(SIGN_IN_PROOF_COOKIE.name);
}
