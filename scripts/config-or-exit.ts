/**
 * The configuration a process starts with (`npm start`, `npm run worker`). A setting the service
 * cannot run with (a malformed TAX_RATES_FILE, a PORT that is no port, …) stops the start with
 * the reason as one line on stderr and exit code 1: the operator reads what to fix, not a stack
 * trace.
 */
import { loadConfig, type Config } from '@/server/config';

export function loadConfigOrExit(env: Record<string, string | undefined> = process.env): Config {
  try {
    return loadConfig(env);
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    process.stderr.write(`${error.message.replace(/\s*\n\s*/g, ' ')}\n`);
    process.exit(1);
  }
}
