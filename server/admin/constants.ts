/**
 * Shared by the service and the CLI. Kept free of imports so that `npm run admin` loads
 * nothing of the server to find them.
 */

/** Where the admin router is served (tRPC's fetch adapter, not the public REST surface). */
export const ADMIN_ENDPOINT = '/api/admin/trpc';

/** The operator token generated on first start, in DATA_DIR, when ADMIN_TOKEN is unset. */
export const ADMIN_TOKEN_FILE = 'admin-token';
