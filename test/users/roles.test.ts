import { describe, expect, it } from 'vitest';
import { MEMBER_ROLES } from '@/db/schema';
import { can, DASHBOARD_ACTIONS } from '@/server/users/roles';

describe('can(role, action)', () => {
  it('is exactly the table of roles', () => {
    const table = Object.fromEntries(MEMBER_ROLES.map((role) => [role, DASHBOARD_ACTIONS.filter((action) => can(role, action))]));
    expect(table).toEqual({
      owner: ['read', 'refund', 'products', 'developer', 'liveSecretKeys', 'export', 'settings', 'bankAccount', 'balance', 'disputes'],
      admin: ['read', 'refund', 'products', 'developer', 'liveSecretKeys', 'export', 'settings', 'balance', 'disputes'],
      developer: ['read', 'products', 'developer', 'export'],
      support: ['read', 'refund', 'export', 'disputes'],
      viewer: ['read'],
    });
  });
});
