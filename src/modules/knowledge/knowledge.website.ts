import { Parser } from 'htmlparser2';
import robotsParser from 'robots-parser';
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

/** The crawler's name: robots.txt groups for it (by its product token) or for `*` apply. */
const USER_AGENT = 'vozgate-knowledge/1.0 (+robots.txt respected)';

/** Elements whose content is not text to index. */
const SKIPPED = new Set(['script', 'style', 'noscript', 'template', 'svg', 'head', 'iframe', 'object']);
/** Elements whose end is a paragraph's. */
const BLOCKS = new Set(['br', 'p', 'div', 'li', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'tr', 'section', 'article', 'header', 'footer', 'blockquote', 'pre', 'table', 'ul', 'ol', 'dd', 'dt']);

/**
 * The text of an HTML page and the http(s) links it has (absolute, without their fragment):
 * scripts, styles and comments dropped, block ends as paragraph breaks, entities decoded.
 * Read by htmlparser2, a tokenizer whose cost is the page's length whatever the page holds (a
 * page is untrusted: an unclosed `<script` or `<!--` repeated costs no more than its bytes).
 */
export function readHtml(html: string, base: string): { text: string; links: string[] } {
  const out: string[] = [];
  const links: string[] = [];
  /** Open elements whose content is skipped (a script inside a template counts twice). */
  let skipping = 0;
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (SKIPPED.has(name)) skipping++;
        if (skipping > 0) return;
        if (name === 'a' && attributes.href !== undefined) {
          const link = absolute(attributes.href, base);
          if (link) links.push(link);
        }
        // A tag between words keeps them apart (a menu's links are words of their own); a line break is a paragraph's.
        out.push(name === 'br' ? '\n\n' : ' ');
      },
      ontext(text) {
        if (skipping === 0) out.push(text);
      },
      onclosetag(name) {
        if (SKIPPED.has(name)) skipping = Math.max(0, skipping - 1);
        else if (skipping === 0 && name !== 'br') out.push(BLOCKS.has(name) ? '\n\n' : ' ');
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.end(html);
  return { text: out.join(''), links };
}

function absolute(href: string, base: string): string | null {
  try {
    const url = new URL(href.trim(), base);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    url.hash = '';
    return url.toString();
  } catch {
    return null;
  }
}

/**
 * What a site's robots.txt allows this crawler (RFC 9309, read by robots-parser: the group of
 * its user agent, else `*`; the longest match of Allow and Disallow; `*` and `$`). A file that
 * is not there (4xx) allows everything; a server error (5xx) allows nothing, as the RFC asks;
 * a site not reached at all is left to its pages' requests, which say why.
 */
function robotsRule(origin: string, answer: { status: number; body: string } | null): (url: string) => boolean {
  if (!answer || (answer.status >= 400 && answer.status < 500)) return () => true;
  if (answer.status >= 500) return () => false;
  const rules = robotsParser(`${origin}/robots.txt`, answer.status < 300 ? answer.body : '');
  return (url) => rules.isAllowed(url, USER_AGENT) !== false;
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
  const robots = new Map<string, (url: string) => boolean>();
  const allowedByRobots = async (target: URL): Promise<boolean> => {
    if (!robots.has(target.origin)) robots.set(target.origin, robotsRule(target.origin, await fetchText(`${target.origin}/robots.txt`, options)));
    return robots.get(target.origin)!(target.toString());
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
