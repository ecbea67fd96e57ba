/**
 * `npm run worker`: the background tasks (server/background-tasks.ts) without the web server,
 * for deployments that run web instances with BACKGROUND_WORK=false. Any number of workers may
 * share one PostgreSQL: every task claims its rows with row locks. It runs until SIGTERM or
 * SIGINT, then finishes the runs in progress and exits 0.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { DatabaseHandle } from '@/db/client';
import { startBackgroundTasks, type PeriodicTask } from '@/server/background';
import { BACKGROUND_TASKS } from '@/server/background-tasks';
import { createServices } from '@/server/app';
import { errorField, log } from '@/server/observability/log';
import type { Services } from '@/server/context';
import { loadConfigOrExit } from './config-or-exit';
import { onStopSignal } from './stop-signals';

/** Waits between attempts to reach the database, growing to the last and staying there. */
const CONNECT_RETRY_SECONDS = [1, 2, 5, 10, 15];

const config = loadConfigOrExit();
if (!config.databaseUrl) {
  log.error('npm run worker needs DATABASE_URL: the embedded database belongs to the one `npm start` process, which runs the background work itself.');
  process.exit(1);
}

// The tasks' timers never hold a process open (a web process must be free to exit once its
// server has closed); a worker has nothing else to do, so this timer holds it until stopped.
setInterval(() => {}, 2 ** 30);
let running: { tasks: PeriodicTask; database: DatabaseHandle } | undefined;

// Before the tasks start there is nothing to finish: a migration cut off by the exit is rolled
// back (PostgreSQL runs it in one transaction), and the next start applies it again.
onStopSignal((signal) => {
  log.info(`${signal}: finishing the runs in progress, then stopping.`);
  void stop();
});

async function stop(): Promise<void> {
  try {
    await running?.tasks.stop();
    await running?.database.close();
  } catch (error) {
    log.error({ err: errorField(error) }, 'Error while stopping');
    process.exitCode = 1;
  }
  log.info('Stopped.');
  process.exit();
}

/** The services, once the database answers. */
async function connect(): Promise<{ services: Services; database: DatabaseHandle }> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await createServices(config);
    } catch (error) {
      const wait = CONNECT_RETRY_SECONDS[Math.min(attempt, CONNECT_RETRY_SECONDS.length - 1)]!;
      log.error(`The database is unreachable (${error instanceof Error ? error.message : String(error)}); trying again in ${wait} s.`);
      await sleep(wait * 1000);
    }
  }
}

const { services, database } = await connect();
running = { tasks: startBackgroundTasks(services, BACKGROUND_TASKS), database };
log.info(`worker started: ${BACKGROUND_TASKS.length} background tasks`);
