import type { renderEmail as render } from './render';

/**
 * React Email and the templates load with the first e-mail rendered, not with the server: they
 * were about half of the server's import time, which every process start and test file paid.
 */
export const renderEmail: typeof render = async (email, context) => (await import('./render')).renderEmail(email, context);
