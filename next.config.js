/** @type {import('next').NextConfig} */
const nextConfig = {
  // Database drivers, the rate limiter, the logger and the metrics client load native/wasm
  // assets or do dynamic imports: keep them out of the bundle and require them from
  // node_modules at run time.
  serverExternalPackages: ['@electric-sql/pglite', 'postgres', 'rate-limiter-flexible', 'pino', 'prom-client'],
  poweredByHeader: false,
  typescript: { ignoreBuildErrors: false },
};

export default nextConfig;
