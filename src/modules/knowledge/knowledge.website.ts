import { OutboundError, outboundRequest } from '../../lib/outbound';

/**
 * A website document's pages, read through the guarded outbound client (lib/outbound.ts: the
 * address guard on the address dialled, connect and total time bounds, a size bound, no
 * redirect followed): its `links`, then `url` and the same-host links found from it, breadth
 * first, up to `relative_links_limit` more pages, never a path the host's robots.txt
 * disallows to every agent (`User-agent: *`).
 */
export interface CrawlOptions {
  /** Lift the address guard (ALLOW_PRIVATE_NETWORK_TARGETS, development and tests only). */
  allowPrivate: boolean;
  /** The most pages one document reads, its links and the crawl together (KB_MAX_WEBSITE_PAGES). */
  maxPages: number;
  timeoutMs?: number;
  maxPageBytes?: number;
}

export interface Page {
  url: string;
  text: string;
}

const USER_AGENT = 'vozgate-knowledge/1.0 (+robots.txt respected)';

/** The text of an HTML page: scripts, styles and comments dropped, block ends as line breaks, entities decoded. */
export function htmlText(html: string): string {
  return decodeEntities(
    html
      .replace(/<!--[\s\S]*?-->/g, ' ')
      .replace(/<(script|style|noscript|template|svg|head)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, ' ')
      .replace(/<(br|\/p|\/div|\/li|\/h[1-6]|\/tr|\/section|\/article|\/header|\/footer|\/blockquote|\/pre|\/table|\/ul|\/ol)\b[^>]*>/gi, '\n\n')
      .replace(/<[^>]*>/g, ' '),
  );
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,8});/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : ' ';
    }
    return NAMED[name.toLowerCase()] ?? whole;
  });
}

/** The http(s) links of a page, absolute, without their fragment. */
export function linksOf(html: string, base: string): string[] {
  const links: string[] = [];
  for (const match of html.matchAll(/<a\b[^>]*?\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/gi)) {
    try {
      const url = new URL(decodeEntities(match[1] ?? match[2] ?? match[3]), base);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') continue;
      url.hash = '';
      links.push(url.toString());
    } catch {
      // Not a URL: not a link to follow.
    }
  }
  return links;
}

/** The path prefixes robots.txt disallows to every agent (the `User-agent: *` groups). */
export function disallowedPaths(robots: string): string[] {
  const rules: string[] = [];
  let agents: string[] = [];
  let inRules = false;
  for (const raw of robots.split(/\r?\n/)) {
    const line = raw.replace(/#.*/, '').trim();
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (key === 'user-agent') {
      if (inRules) agents = [];
      inRules = false;
      agents.push(value.toLowerCase());
    } else if (key === 'disallow' || key === 'allow') {
      inRules = true;
      if (key === 'disallow' && value && agents.includes('*')) rules.push(value);
    }
  }
  return rules;
}

async function fetchText(url: string, options: CrawlOptions): Promise<{ status: number; type: string; body: string } | null> {
  try {
    const res = await outboundRequest({
      url,
      method: 'GET',
      headers: { 'user-agent': USER_AGENT, accept: 'text/html, text/plain;q=0.9' },
      timeoutMs: options.timeoutMs ?? 10_000,
      maxResponseBytes: options.maxPageBytes ?? 2 * 1024 * 1024,
      allowPrivate: options.allowPrivate,
    });
    return { status: res.status, type: String(res.headers['content-type'] ?? ''), body: res.body };
  } catch (error) {
    if (error instanceof OutboundError) return null;
    throw error;
  }
}

/** What a crawl read, and why pages were left out (for the document's failure reason when none was read). */
export interface Crawl {
  pages: Page[];
  refused: string[];
}

export async function crawlWebsite(url: string | null, links: string[], relativeLinks: number, options: CrawlOptions): Promise<Crawl> {
  const robots = new Map<string, string[]>();
  const allowedByRobots = async (target: URL): Promise<boolean> => {
    if (!robots.has(target.origin)) {
      const answer = await fetchText(`${target.origin}/robots.txt`, options);
      robots.set(target.origin, answer && answer.status >= 200 && answer.status < 300 ? disallowedPaths(answer.body) : []);
    }
    const path = `${target.pathname}${target.search}`;
    return !robots.get(target.origin)!.some((prefix) => path.startsWith(prefix));
  };

  const pages: Page[] = [];
  const refused: string[] = [];
  const seen = new Set<string>();
  let budget = options.maxPages;
  /** Reads a page (a path robots.txt disallows is not requested, and costs nothing of the limits); answers its HTML when it has links to follow. */
  const read = async (address: string): Promise<{ requested: boolean; html: string | null }> => {
    const target = new URL(address);
    if (!(await allowedByRobots(target))) {
      refused.push(`${address}: proibida pelo robots.txt`);
      return { requested: false, html: null };
    }
    budget--;
    const answer = await fetchText(address, options);
    if (!answer) {
      refused.push(`${address}: inalcançável, ou um endereço interno que o serviço não chama`);
      return { requested: true, html: null };
    }
    if (answer.status < 200 || answer.status >= 300) {
      refused.push(`${address}: respondeu HTTP ${answer.status}`);
      return { requested: true, html: null };
    }
    const html = /html/i.test(answer.type) || /^\s*</.test(answer.body);
    pages.push({ url: address, text: html ? htmlText(answer.body) : answer.body });
    return { requested: true, html: html ? answer.body : null };
  };

  for (const link of links) {
    if (budget <= 0) break;
    if (seen.has(link)) continue;
    seen.add(link);
    await read(link);
  }
  if (url) {
    const start = new URL(url);
    start.hash = '';
    const queue = [start.toString()];
    // The start page, then up to `relativeLinks` pages found from it.
    let followed = -1;
    while (queue.length > 0 && followed < relativeLinks && budget > 0) {
      const next = queue.shift()!;
      if (seen.has(next)) continue;
      seen.add(next);
      const { requested, html } = await read(next);
      if (requested) followed++;
      if (html === null) continue;
      for (const found of linksOf(html, next)) {
        // The queue is bounded too: a page of a million links reads no more pages than the limit.
        if (new URL(found).host === start.host && !seen.has(found) && queue.length < 1000) queue.push(found);
      }
    }
  }
  return { pages, refused };
}
