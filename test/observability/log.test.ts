import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT, serviceEnv } from '../support/production-server';

/**
 * server/observability/log.ts in a process of its own (it writes to standard output's descriptor
 * itself): every entry redacts a secret field at the top or one level down, except the request
 * line, whose fields are fixed and which skips the redaction.
 */
const run = promisify(execFile);

const PROGRAM = `
import { log, requestLog } from './server/observability/log.ts';
log.info({ authorization: 'Bearer sk_test_x', card: { card_number: '4242424242424242', cvc: '123' }, order: 'ord_1' }, 'charged');
log.warn({ reason: 'card declined', customer: { password: 'hunter2' } }, 'refused');
requestLog.info({ request_id: 'req_1', method: 'POST', route: '/api/v1/checkout/sessions', status: 201, duration_ms: 12 }, 'request');
`;

async function logLines(format: 'json' | 'pretty'): Promise<string[]> {
  const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', PROGRAM], { cwd: ROOT, env: serviceEnv({ LOG_FORMAT: format }) });
  expect(stderr).toBe('');
  return stdout.trim().split('\n');
}

describe('the process logger', () => {
  it('redacts secrets in every entry, writes the request line as given, one JSON object a line', async () => {
    const [charged, refused, request, ...rest] = (await logLines('json')).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(rest).toEqual([]);
    expect(charged).toEqual({
      level: 'info',
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      msg: 'charged',
      authorization: '[redacted]',
      card: { card_number: '[redacted]', cvc: '[redacted]' },
      order: 'ord_1',
    });
    expect(refused).toEqual({ level: 'warn', time: expect.any(String), msg: 'refused', reason: 'card declined', customer: { password: '[redacted]' } });
    expect(request).toEqual({ level: 'info', time: expect.any(String), msg: 'request', request_id: 'req_1', method: 'POST', route: '/api/v1/checkout/sessions', status: 201, duration_ms: 12 });
  });

  it('lines logged just before the process ends leave with it, whether it exits or fails', async () => {
    // Lines leave in batches a few milliseconds apart; an exit must not wait for the next.
    const ending = {
      exit: `log.info('stopping'); process.exit(3);`,
      error: `log.info('stopping'); setImmediate(() => { throw new Error('boom'); });`,
    };
    for (const [how, code] of Object.entries(ending)) {
      const failed = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', `import { log } from './server/observability/log.ts';\n${code}`], {
        cwd: ROOT,
        env: serviceEnv({ LOG_FORMAT: 'json' }),
      }).then(
        () => undefined,
        (error: { code: number; stdout: string }) => error,
      );
      expect(failed?.code, how).toBe(how === 'exit' ? 3 : 1);
      expect(JSON.parse(failed!.stdout.trim()), how).toMatchObject({ level: 'info', msg: 'stopping' });
    }
  });

  it('for a terminal: one readable line an entry, secrets redacted there too', async () => {
    const lines = await logLines('pretty');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d INFO {2}charged authorization=\[redacted\] card=\{"card_number":"\[redacted\]","cvc":"\[redacted\]"\} order=ord_1$/);
    expect(lines[2]).toMatch(/^\d\d:\d\d:\d\d INFO {2}request request_id=req_1 method=POST route=\/api\/v1\/checkout\/sessions status=201 duration_ms=12$/);
    expect(lines.join('\n')).not.toMatch(/4242424242424242|hunter2|sk_test_x/);
  });
});
