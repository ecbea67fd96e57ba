import { TRPCError } from '@trpc/server';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { createContextInner, createRequestState, type Services } from '../context';
import { ADMIN_ENDPOINT } from './constants';
import { adminRouter } from './router';
import { errorField, log } from '../observability/log';

/** Operator requests are a few small JSON objects. */
const MAX_ADMIN_BODY_BYTES = 16 * 1024;

/**
 * The admin router over tRPC's own fetch adapter (the CLI speaks tRPC, not REST). `adminToken`
 * is the resolved operator token (env or the generated file); undefined refuses every call.
 */
export function createAdminHandler(services: Services, adminToken: string | undefined): (request: Request) => Promise<Response> {
  const adminServices: Services = { ...services, config: { ...services.config, adminToken } };
  return (request) => {
    const state = createRequestState(request);
    return fetchRequestHandler({
      endpoint: ADMIN_ENDPOINT,
      req: request,
      router: adminRouter,
      createContext: () => {
        // The fetch adapter has no body limit and reads the body before any middleware runs;
        // HTTP framing holds a body to its declared length, so checking that length suffices.
        const length = Number(request.headers.get('content-length') ?? Number.NaN);
        if (request.method === 'POST' && !(length <= MAX_ADMIN_BODY_BYTES)) {
          throw new TRPCError({ code: 'PAYLOAD_TOO_LARGE', message: `Send a JSON body with a Content-Length of at most ${MAX_ADMIN_BODY_BYTES} bytes.` });
        }
        return createContextInner(adminServices, state);
      },
      onError: ({ error, path }) => {
        if (error.code === 'INTERNAL_SERVER_ERROR') log.error({ request_id: state.id, err: errorField(error.cause ?? error) }, `admin ${path ?? state.path} failed`);
      },
    });
  };
}
