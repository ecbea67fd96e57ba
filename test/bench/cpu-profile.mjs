/**
 * `npm run bench` with BENCH_CPU_PROF=<dir>: loaded into the service with NODE_OPTIONS=--import
 * (which refuses --cpu-prof itself), it profiles the process and writes
 * <dir>/<pid>.cpuprofile when it exits; open it in Chrome DevTools or speedscope.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import path from 'node:path';

const dir = process.env.BENCH_CPU_PROF_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 1000 });
  session.post('Profiler.start');
  // The inspector answers in-thread, synchronously: the profile is written before the exit completes.
  process.on('exit', () => {
    session.post('Profiler.stop', (error, result) => {
      if (!error) writeFileSync(path.join(dir, `${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
