/** `npm run admin -- <command> [--flag value]`: the operator CLI (scripts/admin-cli.ts) as its own process. */
import { runAdmin } from './admin-cli';

process.exitCode = await runAdmin(process.argv.slice(2), {
  env: process.env,
  cwd: process.cwd(),
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
