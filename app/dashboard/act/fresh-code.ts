import { freshCodeCheck } from '@/server/users/two-factor';
import type { ActionInput } from './dispatch';

/**
 * A live-mode change asks a person with two-factor on for a fresh code (the form's `code`): the
 * refusal's code (`code_required`, `invalid_code`, `rate_limited`), or undefined. `path` is the
 * page a failed code is audited on.
 */
export async function freshCodeProblem(input: ActionInput, path: string): Promise<string | undefined> {
  if (input.mode !== 'live') return undefined;
  const code = input.form.text('code');
  const check = await freshCodeCheck(input.services, { userId: input.userId, email: input.actor.email, ip: input.actor.ip, path, scope: input.scope }, code);
  if (check === 'ok') return undefined;
  return check === 'invalid_code' && code.trim() === '' ? 'code_required' : check;
}
