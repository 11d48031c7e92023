/**
 * The route a request to an unknown path was probably meant for: `GET /user/assistants/1` for
 * `GET /user/assistant/{id}`. Paths are compared segment by segment (a `{param}` takes any one
 * segment), a segment costs its share of letters to change, a segment added or left out costs
 * 1, another method 0.5; only a route closer than one whole segment is named, so that a path
 * that merely shares `/user` with the table gets no guess.
 */

export interface RouteTemplate {
  method: string;
  path: string;
}

const MISSING_SEGMENT = 1;
const OTHER_METHOD = 0.5;
const CLOSE = 1;

/** Levenshtein distance, one row at a time (segments are short). */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length];
}

/** 0 for the same segment, up to 1 for a different word; a `{param}` takes any non-empty segment. */
function segmentCost(given: string, template: string): number {
  if (/^\{\w+\}$/.test(template)) return given === '' ? 1 : 0;
  const a = given.toLowerCase();
  const b = template.toLowerCase();
  if (a === b) return 0;
  const edits = editDistance(a, b);
  // A typo or a plural is a few letters of a word; more than that is another word.
  return edits <= 2 && edits < Math.max(a.length, b.length) / 2 ? edits / Math.max(a.length, b.length) : 1;
}

/** The cheapest alignment of the two segment lists (edit distance over segments). */
function pathCost(given: string[], template: string[]): number {
  let previous = Array.from({ length: template.length + 1 }, (_, j) => j * MISSING_SEGMENT);
  for (let i = 1; i <= given.length; i++) {
    const row = [i * MISSING_SEGMENT];
    for (let j = 1; j <= template.length; j++) {
      row[j] = Math.min(previous[j] + MISSING_SEGMENT, row[j - 1] + MISSING_SEGMENT, previous[j - 1] + segmentCost(given[i - 1], template[j - 1]));
    }
    previous = row;
  }
  return previous[template.length];
}

const segments = (path: string) => path.split('/').filter((segment) => segment !== '');

/** The closest route (`GET /user/assistant/{id}`), or null when none is close. */
export function closestRoute(method: string, path: string, routes: readonly RouteTemplate[]): string | null {
  const given = segments(path);
  let best: { route: RouteTemplate; cost: number } | null = null;
  for (const route of routes) {
    const cost = pathCost(given, segments(route.path)) + (route.method === method ? 0 : OTHER_METHOD);
    if (cost < CLOSE && (!best || cost < best.cost)) best = { route, cost };
  }
  return best ? `${best.route.method} ${best.route.path}` : null;
}
