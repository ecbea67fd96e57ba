/**
 * `npm run worker`: the background tasks (server/background-tasks.ts) without the web server,
 * for deployments that run web instances with BACKGROUND_WORK=false. Any number of workers may
 * share one PostgreSQL: every task claims its rows with row locks.
 */
import { startBackgroundTasks } from '@/server/background';
import { BACKGROUND_TASKS } from '@/server/background-tasks';
import { createServices } from '@/server/app';
import { loadConfig } from '@/server/config';

const config = loadConfig();
if (!config.databaseUrl) {
  console.error('npm run worker needs DATABASE_URL: the embedded database belongs to the one `npm start` process, which runs the background work itself.');
  process.exit(1);
}
const { services, database } = await createServices(config);
const tasks = startBackgroundTasks(services, BACKGROUND_TASKS);
console.log(`worker started: ${BACKGROUND_TASKS.length} background tasks`);

async function shutdown(): Promise<void> {
  await tasks.stop();
  await database.close();
  process.exit(0);
}
process.once('SIGTERM', () => void shutdown());
process.once('SIGINT', () => void shutdown());
