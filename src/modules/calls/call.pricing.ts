import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import Decimal from 'decimal.js';
import type { Config } from '../../config';

export interface CallCost {
  carrier_cost: string;
  total_cost: string;
}

/**
 * Answered calls are billed per started minute: the carrier's rate for the destination
 * region (CALL_RATES) plus the platform's fee (CALL_FEE_PER_MINUTE). A call nobody answered
 * costs nothing; a call with no carrier leg (`clientNumber` null: a web call) costs the fee alone.
 */
export function callCost(config: Config, clientNumber: string | null, durationSeconds: number, answered: boolean): CallCost {
  if (!answered || durationSeconds <= 0) return { carrier_cost: '0', total_cost: '0' };
  const minutes = Math.ceil(durationSeconds / 60);
  const region = clientNumber === null ? null : parsePhoneNumberFromString(clientNumber)?.country;
  const rate = clientNumber === null ? new Decimal(0) : new Decimal((region && config.callRates[region]) ?? config.callRates['*']);
  const carrier = rate.times(minutes);
  const total = carrier.plus(new Decimal(config.callFeePerMinute).times(minutes));
  return { carrier_cost: carrier.toFixed(4), total_cost: total.toFixed(4) };
}

/**
 * What starting a call takes from the balance until it ends: its first minute, the least an
 * answered call costs. The rest of a call's cost is debited when it ends, so the balance can
 * go below zero only by what the calls in flight cost past their first minute.
 */
export function callReservation(config: Config, clientNumber: string | null): string {
  return callCost(config, clientNumber, 60, true).total_cost;
}
