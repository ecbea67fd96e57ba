/** @type {import('next').NextConfig} */
const nextConfig = {
  // Database drivers, the rate limiter, the logger, the metrics client and pdfkit (its font
  // metrics files beside its code) load native/wasm
  // assets or do dynamic imports: keep them out of the bundle and require them from
  // node_modules at run time.
  serverExternalPackages: ['@electric-sql/pglite', 'postgres', 'rate-limiter-flexible', 'pino', 'prom-client', 'pdfkit'],
  poweredByHeader: false,
  experimental: {
    // forbidden(): a dashboard page a role may not open answers 403 (storePage in app/dashboard/shell.tsx).
    authInterrupts: true,
    // The build `npm start` makes on a fresh clone has no cache to reuse, and writing one took 16 of its 60 s.
    turbopackFileSystemCacheForBuild: process.env.BUILD_CACHE !== 'false',
  },
  // `npm run build` (CI, developers) type-checks the whole project; the build `npm start` makes does not.
  typescript: { ignoreBuildErrors: process.env.BUILD_TYPECHECK === 'false' },
};

export default nextConfig;
