import type { ConfirmResult } from './service';

/**
 * Messages between SecureCheckoutForm (the merchant's page) and the card frame (served by the
 * service, app/embed/card). Both sides check `event.origin` and `event.source`, and post only
 * to the other side's exact origin: the key and client secret go only to the service origin,
 * and the card never leaves the frame except in the frame's own confirm request.
 */
export const FRAME_PATH = '/embed/card';
const FROM_FRAME = 'payments-card-frame';
const FROM_HOST = 'payments-card-host';

export interface FrameInit {
  source: typeof FROM_HOST;
  type: 'init';
  publishableKey: string;
  clientSecret: string;
  sessionId?: string;
  customerEmail?: string;
  collectEmail: boolean;
  submitLabel: string;
}

export type FrameEvent = { type: 'ready' } | { type: 'resize'; height: number } | { type: 'processing'; processing: boolean } | { type: 'result'; result: ConfirmResult };

export type FrameMessage = FrameEvent & { source: typeof FROM_FRAME };

export function frameMessage(event: FrameEvent): FrameMessage {
  return { ...event, source: FROM_FRAME };
}

export function frameInit(init: Omit<FrameInit, 'source' | 'type'>): FrameInit {
  return { ...init, source: FROM_HOST, type: 'init' };
}

export function isFrameMessage(data: unknown): data is FrameMessage {
  return typeof data === 'object' && data !== null && (data as { source?: unknown }).source === FROM_FRAME;
}

export function isFrameInit(data: unknown): data is FrameInit {
  const init = data as Partial<FrameInit> | null;
  return typeof init === 'object' && init !== null && init.source === FROM_HOST && init.type === 'init' && typeof init.publishableKey === 'string' && typeof init.clientSecret === 'string';
}

/** The frame's address, telling it which origin embeds it (the frame's CSP then allows only that origin to frame it). */
export function cardFrameUrl(frameUrl: string, parentOrigin: string): string {
  const url = new URL(frameUrl);
  url.searchParams.set('origin', parentOrigin);
  return url.toString();
}
