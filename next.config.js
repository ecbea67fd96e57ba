/** @type {import('next').NextConfig} */
const nextConfig = {
  // Database drivers and the rate limiter load native/wasm assets or do dynamic imports:
  // keep them out of the bundle and require them from node_modules at run time.
  serverExternalPackages: ['@electric-sql/pglite', 'postgres', 'rate-limiter-flexible'],
  poweredByHeader: false,
  typescript: { ignoreBuildErrors: false },
};

export default nextConfig;
