import { lookup as dnsLookup } from 'node:dns/promises';
import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import net, { BlockList } from 'node:net';

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

const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this" network, unspecified
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128],
  ['100::', 64], // discard
  ['2001::', 23], // IETF protocol assignments (Teredo, ORCHID...)
  ['2001:db8::', 32],
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local
  ['ff00::', 8], // multicast
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

/** The IPv4 address an IPv6 address carries (mapped, compatible, NAT64), if any. */
function embeddedIpv4(address: string): string | null {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|::|64:ff9b::)(\d{1,3}(?:\.\d{1,3}){3})$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const [high, low] = [parseInt(hex[1], 16), parseInt(hex[2], 16)];
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  }
  return null;
}

/** Whether the service must never connect to this address. */
export function isBlockedAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) {
    const v4 = embeddedIpv4(address);
    return v4 !== null ? blocked.check(v4, 'ipv4') : blocked.check(address, 'ipv6');
  }
  return true;
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
