import type { Database } from '@/db/client';
import type { Clock } from '../clock';
import type { Config } from '../config';
import { createLiveGateway } from './live';
import { createSimulatorGateway, testCardCountry } from './simulator';
import type { Gateways } from './types';

/** Test mode always runs on the simulator, live mode on the acquirer: never mixed. */
export function createGateways(deps: { db: Database; clock: Clock; config: Pick<Config, 'gateway'> }): Gateways {
  return { test: createSimulatorGateway({ db: deps.db, clock: deps.clock }), live: createLiveGateway(deps.config.gateway) };
}

/**
 * The issuing country of the card paying (digits only), where it is known before the charge: the
 * test cards say it; a live card's is unknown, as the acquirer tells it only with the charge.
 */
export function cardCountryOf(digits: string, livemode: boolean): string | null {
  return livemode ? null : testCardCountry(digits);
}
