import type { z } from 'zod';
import { ApiError, isErrorCode } from '../errors';
import { formatParam } from '../kit/text-input';

type Issue = z.core.$ZodIssue;

function describe(issue: Issue, param: string): string {
  if (issue.code === 'invalid_type' && /received undefined$/.test(issue.message)) {
    return `Missing required parameter: ${param}.`;
  }
  const detail = issue.message.replace(/^Invalid input: /, '');
  return param === '' ? `Invalid request: ${detail}.` : `Invalid ${param}: ${detail}.`;
}

/**
 * The first validation issue becomes the error. A schema names a rule's own code by
 * `params: { apiCode }` on a custom issue (e.g. `metadata_invalid`); everything else is
 * `parameter_invalid`.
 */
export function apiErrorFromZod(error: { issues: readonly Issue[] }): ApiError {
  const issue = error.issues[0];
  if (!issue) return new ApiError('parameter_invalid', 'Invalid request.');
  if (issue.code === 'unrecognized_keys') {
    const param = formatParam([...issue.path, issue.keys[0] ?? '']);
    const message = issue.message.startsWith('Unrecognized key') ? `Received unknown parameter: ${param}.` : issue.message;
    return new ApiError('parameter_invalid', message, { param });
  }
  const param = formatParam(issue.path);
  if (issue.code === 'custom') {
    const apiCode: unknown = issue.params?.apiCode;
    if (isErrorCode(apiCode)) return new ApiError(apiCode, issue.message, param === '' ? {} : { param });
  }
  return new ApiError('parameter_invalid', describe(issue, param), param === '' ? {} : { param });
}
