import { customersCsvResponse } from '../../customers/csv';

export const dynamic = 'force-dynamic';

export function GET(request: Request) {
  return customersCsvResponse('test', request);
}
