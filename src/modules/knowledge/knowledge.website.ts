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

/** Elements whose content is not text to index. */
const SKIPPED = new Set(['script', 'style', 'noscript', 'template', 'svg', 'head', 'iframe', 'object']);
/** Elements whose end is a paragraph's. */
const BLOCKS = new Set(['br', 'p', 'div', 'li', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'tr', 'section', 'article', 'header', 'footer', 'blockquote', 'pre', 'table', 'ul', 'ol', 'dd', 'dt']);
/** A tag longer than this is not looked into for its href (a crafted tag must not cost more than its length). */
const MAX_LINK_TAG = 4096;
const HREF = /\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i;

/**
 * The text of an HTML page and the http(s) links it has (absolute, without their fragment):
 * scripts, styles and comments dropped, block ends as paragraph breaks, entities decoded.
 * One pass with indexOf, never a regular expression over the page: a page is untrusted, and
 * an unclosed `<script` or `<!--` repeated must cost its length, not its length squared.
 */
export function readHtml(html: string, base: string): { text: string; links: string[] } {
  const out: string[] = [];
  const links: string[] = [];
  let pos = 0;
  while (pos < html.length) {
    const lt = html.indexOf('<', pos);
    if (lt < 0) {
      out.push(html.slice(pos));
      break;
    }
    out.push(html.slice(pos, lt));
    if (html.startsWith('<!--', lt)) {
      const end = html.indexOf('-->', lt + 4);
      if (end < 0) break;
      pos = end + 3;
      out.push(' ');
      continue;
    }
    const gt = html.indexOf('>', lt + 1);
    if (gt < 0) break;
    const tag = html.slice(lt + 1, gt);
    pos = gt + 1;
    const element = /^(\/?)([a-zA-Z][a-zA-Z0-9]{0,15})/.exec(tag);
    if (!element) {
      out.push(' ');
      continue;
    }
    const closing = element[1] === '/';
    const name = element[2].toLowerCase();
    if (!closing && SKIPPED.has(name) && !tag.endsWith('/')) {
      pos = endOf(html, name, pos);
      out.push(' ');
      continue;
    }
    if (!closing && name === 'a' && tag.length <= MAX_LINK_TAG) {
      const href = HREF.exec(tag);
      const link = href ? absolute(decodeEntities(href[1] ?? href[2] ?? href[3]), base) : null;
      if (link) links.push(link);
    }
    out.push(BLOCKS.has(name) && (closing || name === 'br') ? '\n\n' : ' ');
  }
  return { text: decodeEntities(out.join('')), links };
}

/** Where the element `name` that starts before `from` ends: after its closing tag, or the end of the page. */
function endOf(html: string, name: string, from: number): number {
  for (let at = from; ; ) {
    const close = html.indexOf('</', at);
    if (close < 0) return html.length;
    if (html.slice(close + 2, close + 2 + name.length).toLowerCase() === name) {
      const gt = html.indexOf('>', close);
      return gt < 0 ? html.length : gt + 1;
    }
    at = close + 2;
  }
}

function absolute(href: string, base: string): string | null {
  try {
    const url = new URL(href, base);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    url.hash = '';
    return url.toString();
  } catch {
    return null;
  }
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
  /** Reads a page (a path robots.txt disallows is not requested, and costs nothing of the limits); answers the links it has. */
  const read = async (address: string): Promise<{ requested: boolean; links: string[] }> => {
    const target = new URL(address);
    if (!(await allowedByRobots(target))) {
      refused.push(`${address}: proibida pelo robots.txt`);
      return { requested: false, links: [] };
    }
    budget--;
    const answer = await fetchText(address, options);
    if (!answer) {
      refused.push(`${address}: inalcançável, ou um endereço interno que o serviço não chama`);
      return { requested: true, links: [] };
    }
    if (answer.status < 200 || answer.status >= 300) {
      refused.push(`${address}: respondeu HTTP ${answer.status}`);
      return { requested: true, links: [] };
    }
    if (!/html/i.test(answer.type) && !answer.body.trimStart().startsWith('<')) {
      pages.push({ url: address, text: answer.body });
      return { requested: true, links: [] };
    }
    const { text, links: found } = readHtml(answer.body, address);
    pages.push({ url: address, text });
    return { requested: true, links: found };
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
      const { requested, links: found } = await read(next);
      if (requested) followed++;
      for (const link of found) {
        // The queue is bounded too: a page of a million links reads no more pages than the limit.
        if (new URL(link).host === start.host && !seen.has(link) && queue.length < 1000) queue.push(link);
      }
    }
  }
  return { pages, refused };
}
