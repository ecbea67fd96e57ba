import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, type PasswordProblem } from '@/server/users/service';

/** What each password problem (passwordProblem) tells the person, wherever a password is set. */
export const PASSWORD_MESSAGES: Record<PasswordProblem, string> = {
  too_short: `Use at least ${MIN_PASSWORD_LENGTH} characters.`,
  too_long: `Use at most ${MAX_PASSWORD_LENGTH} characters.`,
  mismatch: 'The two passwords are not the same.',
};

/** The message of an `?error=` code, when it is a password problem. */
export function passwordMessage(code: string): string | undefined {
  return Object.hasOwn(PASSWORD_MESSAGES, code) ? PASSWORD_MESSAGES[code as PasswordProblem] : undefined;
}
