import type { KeyKind } from '@/server/auth/service';
import { apiKeyKind, createApiKey, revokeApiKey, ROLL_GRACE_SECONDS, rollApiKey } from '@/server/keys/service';
import { dashboardBase } from '../access';
import { withError, type ActionInput, type DashboardActionDefinition } from '../act/dispatch';
import { freshCodeProblem } from '../act/fresh-code';
import { revealOnNextView } from '../reveal';

const KINDS: readonly KeyKind[] = ['secret', 'publishable'];

const keysPath = (input: ActionInput) => `${dashboardBase(input.mode)}/api-keys`;

/** Checks the code a live-mode key change asks for, acts, and shows a new key once on the page. */
async function keyAction(input: ActionInput, act: (path: string) => Promise<string>): Promise<string> {
  const path = keysPath(input);
  const problem = await freshCodeProblem(input, path);
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
