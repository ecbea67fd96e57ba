import { check, index, integer, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { oneOf, timestamptz } from './columns';
import { stores } from './stores';

export const MEMBER_ROLES = ['owner', 'admin', 'developer', 'support', 'viewer'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

export const ONE_TIME_LINK_PURPOSES = ['invite', 'reset'] as const;
export type OneTimeLinkPurpose = (typeof ONE_TIME_LINK_PURPOSES)[number];

/**
 * People who sign in to the dashboard. No password until they follow their first link.
 * `session_version` is written into every session; bumping it ends all of them at once.
 */
export const users = pgTable('users', {
  id: text('id').primaryKey(),
  /** Lower-cased, so one address is one person. */
  email: text('email').notNull().unique(),
  /** `scrypt$N$r$p$salt$hash` (server/users/password.ts). */
  passwordHash: text('password_hash'),
  sessionVersion: integer('session_version').notNull().default(1),
  /**
   * The TOTP secret, AES-256-GCM encrypted (server/users/two-factor.ts): codes are checked against
   * it, so it cannot be a hash. Set while two-factor is being turned on, kept while it is on.
   */
  totpSecret: text('totp_secret'),
  /** Null while the secret awaits its first right code: two-factor is on only once this is set. */
  totpEnabledAt: timestamptz('totp_enabled_at'),
  /** The last 30-second step whose code was accepted; a code of it or an earlier step is refused. */
  totpLastStep: integer('totp_last_step'),
  createdAt: timestamptz('created_at').notNull().defaultNow(),
});

/** Two-factor backup codes: shown once, stored only as SHA-256, each spent by a conditional update. */
export const backupCodes = pgTable(
  'backup_codes',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    codeHash: text('code_hash').notNull(),
    createdAt: timestamptz('created_at').notNull(),
    usedAt: timestamptz('used_at'),
  },
  (t) => [index('backup_codes_user_idx').on(t.userId)],
);

/**
 * A person's role in one store. A membership gives access only once accepted: an invitation from
 * the dashboard waits for the invited person, signed in as themselves, to accept it.
 */
export const memberships = pgTable(
  'memberships',
  {
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    storeId: text('store_id')
      .notNull()
      .references(() => stores.id, { onDelete: 'cascade' }),
    role: text('role').$type<MemberRole>().notNull(),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
    /** Null while the invitation is pending. */
    acceptedAt: timestamptz('accepted_at'),
  },
  (t) => [uniqueIndex('memberships_user_store_unique').on(t.userId, t.storeId), index('memberships_store_idx').on(t.storeId), check('memberships_role_check', oneOf(t.role, MEMBER_ROLES))],
);

/**
 * Invitation and password-reset links. The token is shown once and stored only as its SHA-256;
 * `used_at` is set by the conditional update that spends it.
 */
export const oneTimeLinks = pgTable(
  'one_time_links',
  {
    id: text('id').primaryKey(),
    tokenHash: text('token_hash').notNull(),
    purpose: text('purpose').$type<OneTimeLinkPurpose>().notNull(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The store and role an invitation was for. */
    storeId: text('store_id').references(() => stores.id, { onDelete: 'cascade' }),
    role: text('role').$type<MemberRole>(),
    createdAt: timestamptz('created_at').notNull(),
    expiresAt: timestamptz('expires_at').notNull(),
    usedAt: timestamptz('used_at'),
  },
  (t) => [uniqueIndex('one_time_links_token_unique').on(t.tokenHash), index('one_time_links_user_idx').on(t.userId), check('one_time_links_purpose_check', oneOf(t.purpose, ONE_TIME_LINK_PURPOSES))],
);
