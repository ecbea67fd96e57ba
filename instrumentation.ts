/**
 * Next runs `register` once when its server starts. It hands the API handler of Next's build to
 * scripts/serve.ts (server/host/published.ts says why that build); nothing is opened here.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  const [{ getApiHandler, checkDatabase }, { publishApp }] = await Promise.all([import('./server/app'), import('./server/host/published')]);
  publishApp({ getApiHandler, checkDatabase });
}
