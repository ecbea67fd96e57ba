import type { KeyKind } from '@/server/auth/service';
import { apiKeyKind, createApiKey, revokeApiKey, ROLL_GRACE_SECONDS, rollApiKey } from '@/server/keys/service';
import { freshCodeCheck } from '@/server/users/two-factor';
import { dashboardBase } from '../access';
import { withError, type ActionInput, type DashboardActionDefinition } from '../act/dispatch';
import { revealOnNextView } from '../reveal';

const KINDS: readonly KeyKind[] = ['secret', 'publishable'];

const keysPath = (input: ActionInput) => `${dashboardBase(input.mode)}/api-keys`;

/** A live-mode key change asks a person with two-factor on for a fresh code; the refusal's code, or undefined. */
async function codeProblem(input: ActionInput): Promise<string | undefined> {
  if (input.mode !== 'live') return undefined;
  const code = input.form.text('code');
  const check = await freshCodeCheck(input.services, { userId: input.userId, email: input.actor.email, ip: input.actor.ip, path: keysPath(input), scope: input.scope }, code);
  if (check === 'ok') return undefined;
  return check === 'invalid_code' && code.trim() === '' ? 'code_required' : check;
}

/** Checks the code, acts, and shows a new key once on the page. */
async function keyAction(input: ActionInput, act: (path: string) => Promise<string>): Promise<string> {
  const path = keysPath(input);
  const problem = await codeProblem(input);
  if (problem) return withError(path, problem);
  return act(path);
}

/** A live secret key can do all the API can, refunds included: only owners and admins manage one. */
const liveSecretRight = (input: ActionInput, kind: KeyKind | undefined) => (input.mode === 'live' && kind === 'secret' ? ('liveSecretKeys' as const) : undefined);
const targetKeyRight = async (input: ActionInput) => liveSecretRight(input, await apiKeyKind(input.services.db, input.scope, input.form.text('key_id')));

export const apiKeyCreate: DashboardActionDefinition = {
  right: 'developer',
  targetRight: async (input) =>
    liveSecretRight(
      input,
      KINDS.find((candidate) => candidate === input.form.text('kind')),
    ),
  run: (input) =>
    keyAction(input, async (path) => {
      const kind = KINDS.find((candidate) => candidate === input.form.text('kind'));
      if (!kind) return withError(path, 'kind');
      const key = await createApiKey(input.services, input.scope, { ...input.actor, path }, kind);
      await revealOnNextView(input.services, path, 'api_key', input.userId, key);
      return path;
    }),
};

export const apiKeyRoll: DashboardActionDefinition = {
  right: 'developer',
  targetRight: targetKeyRight,
  run: (input) =>
    keyAction(input, async (path) => {
      const grace = ROLL_GRACE_SECONDS.find((seconds) => String(seconds) === input.form.text('expires_in'));
      if (grace === undefined) return withError(path, 'expires_in');
      const key = await rollApiKey(input.services, input.scope, { ...input.actor, path }, input.form.text('key_id'), grace);
      if (!key) return withError(path, 'not_active');
      await revealOnNextView(input.services, path, 'api_key', input.userId, key);
      return path;
    }),
};

export const apiKeyRevoke: DashboardActionDefinition = {
  right: 'developer',
  targetRight: targetKeyRight,
  run: (input) =>
    keyAction(input, async (path) => {
      if (input.form.text('confirm') !== 'yes') return withError(path, 'confirm');
      const revoked = await revokeApiKey(input.services, input.scope, { ...input.actor, path }, input.form.text('key_id'));
      return revoked ? path : withError(path, 'not_active');
    }),
};
