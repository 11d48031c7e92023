import { formatCount, formatMoney } from '../../ui/format';

/**
 * The analytics figures as the page shows them. The API rounds each figure (rates to four
 * decimals, money exactly to four, durations to one): these only print those values, and the
 * page does no arithmetic on money (a chart's axis only places the points).
 */
export const formatRate = (rate: number | null | undefined) => (rate === null || rate === undefined ? '—' : `${(rate * 100).toFixed(2)}%`);
export const formatSeconds = (seconds: number | null | undefined) => (seconds === null || seconds === undefined ? '—' : `${seconds.toFixed(1)} s`);
export const formatMs = (ms: number) => `${formatCount(ms)} ms`;
export { formatCount, formatMoney };
