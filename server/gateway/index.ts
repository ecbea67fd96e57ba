import type { Database } from '@/db/client';
import type { Clock } from '../clock';
import type { Config } from '../config';
import { createLiveGateway } from './live';
import { createSimulatorGateway } from './simulator';
import type { Gateways } from './types';

/** Test mode always runs on the simulator, live mode on the acquirer: never mixed. */
export function createGateways(deps: { db: Database; clock: Clock; config: Pick<Config, 'gateway'> }): Gateways {
  return { test: createSimulatorGateway({ db: deps.db, clock: deps.clock }), live: createLiveGateway(deps.config.gateway) };
}
