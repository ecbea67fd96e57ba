import { createAdminHandler } from '@/server/admin/handler';
import { getAppServices } from '@/server/app';
import { ensureSecrets } from '@/server/bootstrap';

export const dynamic = 'force-dynamic';

let adminHandler: Promise<(request: Request) => Promise<Response>> | undefined;

// The operator token comes from ADMIN_TOKEN, else from the file generated on first start. A
// failed start is forgotten, so the next request tries again.
function getAdminHandler() {
  if (!adminHandler) {
    const starting = getAppServices().then(async (services) => createAdminHandler(services, (await ensureSecrets(services.config)).adminToken));
    adminHandler = starting;
    starting.catch(() => {
      if (adminHandler === starting) adminHandler = undefined;
    });
  }
  return adminHandler;
}

async function handle(request: Request): Promise<Response> {
  return (await getAdminHandler())(request);
}

export { handle as GET, handle as POST };
