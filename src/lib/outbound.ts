import { lookup as dnsLookup } from 'node:dns/promises';
import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { FieldMessages, type FieldErrorCollector } from '../errors';

/**
 * The one HTTP client for URLs that users give the service (mid-call tools, webhooks).
 * It refuses private, loopback, link-local, metadata, CGNAT, multicast, reserved and
 * unspecified addresses, in IPv4, IPv6 and IPv4-mapped forms. The check is made on the
 * address that is actually dialled: the name is resolved once, every address is checked,
 * and the socket connects to that address (no second lookup, so no DNS-rebinding gap).
 * Redirects are never followed; connect and total time and the response size are bounded.
 */
export interface OutboundRequest {
  url: string;
  method: string;
  headers?: Record<string, string>;
  body?: string;
  /** The whole exchange, connect included. */
  timeoutMs: number;
  connectTimeoutMs?: number;
  /** Response bytes kept; the rest is discarded. */
  maxResponseBytes?: number;
  /** Lift the address guard (local development and tests only). */
  allowPrivate?: boolean;
}

export interface OutboundResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  truncated: boolean;
  latencyMs: number;
}

/** What a log line says of a refused target: a development machine may lift the guard. */
export const BLOCKED_TARGET_HINT = 'the URL points inside the network; ALLOW_PRIVATE_NETWORK_TARGETS=true allows that in development';

export type OutboundFailure = 'blocked' | 'invalid-url' | 'dns' | 'timeout' | 'connection';

export class OutboundError extends Error {
  constructor(
    readonly kind: OutboundFailure,
    message: string,
    readonly latencyMs = 0,
  ) {
    super(message);
    this.name = 'OutboundError';
  }
}

const IPV4_TRANSLATION_PREFIX = ipaddr.IPv6.parse('64:ff9b::');
const GLOBAL_UNICAST = ipaddr.IPv6.parse('2000::');

/**
 * The address a connection to `address` reaches, as far as the guard can tell: the IPv4
 * address that an IPv6 form carries (mapped, compatible, RFC 6145 translated, RFC 6052
 * NAT64 with the well-known prefix, 6to4), or the address itself.
 */
function effectiveAddress(address: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  if (address.kind() === 'ipv4') return address;
  const v6 = address as ipaddr.IPv6;
  const [p0, p1, p2, p3, p4, p5, p6, p7] = v6.parts;
  const ipv4 = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 255, low >> 8, low & 255]);
  const zeros = (parts: number[]) => parts.every((part) => part === 0);
  if (zeros([p0, p1, p2, p3, p4]) && (p5 === 0xffff || p5 === 0)) return ipv4(p6, p7); // ::ffff:a.b.c.d, ::a.b.c.d
  if (zeros([p0, p1, p2, p3]) && p4 === 0xffff && p5 === 0) return ipv4(p6, p7); // ::ffff:0:a.b.c.d
  if (v6.match(IPV4_TRANSLATION_PREFIX, 96)) return ipv4(p6, p7); // 64:ff9b::a.b.c.d
  if (p0 === 0x2002) return ipv4(p1, p2); // 6to4: 2002:AABB:CCDD::
  return v6;
}

/**
 * Whether the service must never connect to this address: anything but public unicast
 * (ipaddr.js's ranges: private, loopback, link-local and metadata, CGNAT, multicast,
 * reserved, documentation, unique-local, Teredo, the local-use NAT64 prefix...), judged on
 * the IPv4 address an IPv6 form carries; IPv6 outside 2000::/3 is not allocated at all.
 */
export function isBlockedAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return true;
  const effective = effectiveAddress(ipaddr.parse(address));
  if (effective.range() !== 'unicast') return true;
  return effective.kind() === 'ipv6' && !(effective as ipaddr.IPv6).match(GLOBAL_UNICAST, 3);
}

export interface Target {
  url: URL;
  address: string;
  family: 4 | 6;
}

/** Parses the URL and resolves its host to one address the guard allows. */
export async function resolveTarget(rawUrl: string, allowPrivate = false): Promise<Target> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new OutboundError('invalid-url', 'the URL is not valid');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundError('invalid-url', 'only http and https URLs are called');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: { address: string; family: number }[];
  if (net.isIP(host)) {
    addresses = [{ address: host, family: net.isIP(host) }];
  } else {
    try {
      addresses = await dnsLookup(host, { all: true, verbatim: true });
    } catch {
      throw new OutboundError('dns', `the name ${host} does not resolve`);
    }
  }
  if (addresses.length === 0) throw new OutboundError('dns', `the name ${host} does not resolve`);
  // Every address must pass: a name that also points inside the network is refused whole.
  if (!allowPrivate && addresses.some((a) => isBlockedAddress(a.address))) {
    throw new OutboundError('blocked', `${host} points to an address the service does not call (private, loopback or reserved)`);
  }
  const chosen = addresses[0];
  return { url, address: chosen.address, family: chosen.family === 6 ? 6 : 4 };
}

export async function outboundRequest(request: OutboundRequest): Promise<OutboundResponse> {
  const started = Date.now();
  const target = await resolveTarget(request.url, request.allowPrivate);
  const maxBytes = request.maxResponseBytes ?? 64 * 1024;
  const client = target.url.protocol === 'https:' ? https : http;

  return new Promise<OutboundResponse>((resolve, reject) => {
    let settled = false;
    const fail = (kind: OutboundFailure, message: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(total);
      req.destroy();
      reject(new OutboundError(kind, message, Date.now() - started));
    };
    const req = client.request(
      {
        protocol: target.url.protocol,
        hostname: target.url.hostname.replace(/^\[|\]$/g, ''),
        port: target.url.port || undefined,
        path: `${target.url.pathname}${target.url.search}`,
        method: request.method,
        headers: {
          ...(request.body !== undefined ? { 'content-length': Buffer.byteLength(request.body) } : {}),
          ...request.headers,
        },
        // Connect to the address that was checked, whatever the name resolves to now.
        lookup: (_hostname, options, callback) => {
          if ((options as { all?: boolean }).all) (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: target.address, family: target.family }]);
          else (callback as (e: null, a: string, f: number) => void)(null, target.address, target.family);
        },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        let truncated = false;
        res.on('data', (chunk: Buffer) => {
          if (size < maxBytes) chunks.push(chunk.subarray(0, maxBytes - size));
          else truncated = true;
          size += chunk.length;
          if (size > maxBytes) truncated = true;
        });
        res.on('end', () => {
          if (settled) return;
          settled = true;
          clearTimeout(total);
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
            truncated,
            latencyMs: Date.now() - started,
          });
        });
        res.on('error', (error) => fail('connection', error.message));
      },
    );
    const total = setTimeout(() => fail('timeout', `no complete answer within ${request.timeoutMs} ms`), request.timeoutMs);
    const connectTimeout = request.connectTimeoutMs ?? Math.min(request.timeoutMs, 5000);
    req.on('socket', (socket) => {
      if (socket.connecting) {
        const timer = setTimeout(() => fail('timeout', `could not connect within ${connectTimeout} ms`), connectTimeout);
        socket.once('connect', () => clearTimeout(timer));
        socket.once('close', () => clearTimeout(timer));
      }
    });
    req.on('error', (error) => fail('connection', error.message));
    req.end(request.body);
  });
}

/** Whether the address guard would refuse the URL. A name that does not resolve now may later: not refused. */
async function pointsInside(url: string): Promise<boolean> {
  try {
    await resolveTarget(url);
    return false;
  } catch (error) {
    return error instanceof OutboundError && error.kind === 'blocked';
  }
}

/**
 * A URL given now that the service calls later (a webhook endpoint, a mid-call tool), which
 * the address guard would refuse: every call to it would fail. Outside development that is an
 * error on `field` now; in development (a receiver on localhost is the usual first try) it is
 * taken, and the answer warns (true). Lifted by ALLOW_PRIVATE_NETWORK_TARGETS.
 */
export async function checkCalledLater(
  config: { allowPrivateNetworkTargets: boolean; development: boolean },
  errors: FieldErrorCollector,
  field: string,
  url: string | null,
): Promise<boolean> {
  const inside = url !== null && !config.allowPrivateNetworkTargets && (await pointsInside(url));
  if (inside && !config.development) errors.add(field, FieldMessages.privateUrl(field));
  return inside && config.development;
}
