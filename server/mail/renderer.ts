import type { renderEmail as render, renderEmailSubject as renderSubject } from './render';

/**
 * React Email and the templates load with the first e-mail rendered, not with the server: they
 * were 0.8 of the 2.1 s the server's modules took to load, paid by every process and test file.
 */
export const renderEmail: typeof render = async (email, context) => (await import('./render')).renderEmail(email, context);

export const renderEmailSubject = async (...args: Parameters<typeof renderSubject>): Promise<string> => (await import('./render')).renderEmailSubject(...args);
