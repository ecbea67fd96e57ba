'use client';

import { useEffect, useRef, useState } from 'react';
import type { ServiceError } from '../errors';
import { cardFrameUrl, FRAME_PATH, frameInit, isFrameMessage } from '../frame-protocol';
import { useService } from './context';
import { redirectOnSuccess, type CheckoutFormBaseProps } from './form-props';
import { CheckoutOutcome } from './outcome';

export interface SecureCheckoutFormProps extends CheckoutFormBaseProps {
  /** The card frame's address; default `<apiBaseUrl>/embed/card`. */
  frameUrl?: string;
}

const INITIAL_FRAME_HEIGHT = 320;

/**
 * The card inputs live in a frame served from the service origin, which sends the
 * confirm itself; this page only learns the outcome. Field errors show inside the frame.
 */
export function SecureCheckoutForm({
  clientSecret,
  sessionId,
  customerEmail,
  collectEmail = false,
  submitLabel = 'Pay',
  onSuccess,
  onError,
  className,
  checkoutUrl,
  frameUrl,
}: SecureCheckoutFormProps) {
  const service = useService();
  const frame = useRef<HTMLIFrameElement>(null);
  // Known only in the browser (the page's own origin goes into the frame's address).
  const [src, setSrc] = useState<string | null>(null);
  const [height, setHeight] = useState(INITIAL_FRAME_HEIGHT);
  const [processing, setProcessing] = useState(false);
  const [outcome, setOutcome] = useState<ServiceError | null>(null);
  const callbacks = useRef({ onSuccess, onError });
  callbacks.current = { onSuccess, onError };

  useEffect(() => {
    setSrc(cardFrameUrl(frameUrl ?? `${service.apiBaseUrl}${FRAME_PATH}`, window.location.origin));
  }, [frameUrl, service]);

  useEffect(() => {
    if (!src) return undefined;
    const frameOrigin = new URL(src).origin;
    const init = frameInit({
      publishableKey: service.publishableKey,
      clientSecret,
      ...(sessionId ? { sessionId } : {}),
      ...(customerEmail ? { customerEmail } : {}),
      collectEmail,
      submitLabel,
    });
    function receive(event: MessageEvent) {
      if (event.origin !== frameOrigin || event.source !== frame.current?.contentWindow || !isFrameMessage(event.data)) return;
      const message = event.data;
      if (message.type === 'ready') frame.current.contentWindow!.postMessage(init, frameOrigin);
      else if (message.type === 'resize') setHeight(Math.ceil(message.height));
      else if (message.type === 'processing') {
        setProcessing(message.processing);
        if (message.processing) setOutcome(null);
      } else if (message.type === 'result') {
        const { result } = message;
        if (result.session) return (callbacks.current.onSuccess ?? redirectOnSuccess(service))(result.session);
        // Field errors are shown next to the fields, in the frame.
        if (result.error.type !== 'validation_error' || !result.error.param) setOutcome(result.error);
        callbacks.current.onError?.(result.error);
      }
      return undefined;
    }
    window.addEventListener('message', receive);
    return () => window.removeEventListener('message', receive);
  }, [src, service, clientSecret, sessionId, customerEmail, collectEmail, submitLabel]);

  return (
    <div className={className} aria-busy={processing}>
      {src ? <iframe ref={frame} src={src} title="Secure card payment" style={{ border: 0, width: '100%', height }} referrerPolicy="no-referrer" allow="payment" /> : null}
      {outcome ? <CheckoutOutcome error={outcome} service={service} checkoutUrl={checkoutUrl} /> : null}
    </div>
  );
}
