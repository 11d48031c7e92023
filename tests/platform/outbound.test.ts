import { OutboundError, isBlockedAddress, outboundRequest, resolveTarget } from '../../src/lib/outbound';
import { json, startReceiver, type Receiver } from '../helpers/receiver';

describe('the address guard', () => {
  it.each([
    '127.0.0.1', '127.255.255.254', '10.0.0.1', '172.16.5.4', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1',
    '0.0.0.0', '224.0.0.1', '239.255.255.250', '255.255.255.255', '198.18.0.1',
    '::', '::1', 'fe80::1', 'fc00::1', 'fd12:3456::1', 'ff02::1',
    '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:a9fe:a9fe', '64:ff9b::a9fe:a9fe', '::127.0.0.1',
    // IPv4-compatible, RFC 6145 translated, local-use NAT64, 6to4, Teredo, documentation, unallocated
    '::7f00:1', '::ffff:0:127.0.0.1', '::ffff:0:7f00:1', '64:ff9b:1::7f00:1', '64:ff9b:1::808:808', '2002:7f00:1::', '2002:a00:1::1',
    '2001::1', '2001:db8::1', '100::1', '4000::1',
  ])('blocks %s', (address) => {
    expect(isBlockedAddress(address)).toBe(true);
  });

  it.each([
    '8.8.8.8', '93.184.216.34', '172.32.0.1', '100.128.0.1', '2001:4860:4860::8888', '2606:4700::1111', '::ffff:8.8.8.8',
    '64:ff9b::808:808', '2002:808:808::1',
  ])(
    'allows %s',
    (address) => {
      expect(isBlockedAddress(address)).toBe(false);
    },
  );

  it.each([
    'http://127.0.0.1/x',
    'http://[::1]:8080/x',
    'http://[::ffff:7f00:1]/x',
    'http://[::ffff:127.0.0.1]/x',
    'http://169.254.169.254/latest/meta-data/',
    'http://10.0.0.1/internal',
    'http://0.0.0.0/',
    'http://[::]/',
    'https://100.64.0.1/',
    'http://2130706433/', // 127.0.0.1 written as one number
    'http://0x7f.1/', // and in hex
    'http://localhost/', // a name that resolves to loopback
    'http://[::127.0.0.1]/',
    'http://[::ffff:0:127.0.0.1]/',
    'http://[64:ff9b:1::7f00:1]/',
    'http://[2002:7f00:1::]/',
  ])('refuses %s before any connection', async (url) => {
    await expect(resolveTarget(url)).rejects.toMatchObject({ kind: 'blocked' });
  });

  it.each(['ftp://example.com/', 'not a url', 'file:///etc/passwd'])('refuses %s as not callable', async (url) => {
    await expect(resolveTarget(url)).rejects.toMatchObject({ kind: 'invalid-url' });
  });
});

describe('outbound requests', () => {
  let receiver: Receiver;
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(() => receiver.close());

  it('make no connection to loopback in any form while the guard is on', async () => {
    for (const host of ['127.0.0.1', '[::ffff:7f00:1]', '[::ffff:127.0.0.1]', 'localhost', '[::127.0.0.1]', '[::ffff:0:127.0.0.1]']) {
      const error = await outboundRequest({ url: `http://${host}:${receiver.port}/hook`, method: 'POST', body: '{}', timeoutMs: 1000 }).catch((e) => e);
      expect(error).toBeInstanceOf(OutboundError);
      expect(error.kind).toBe('blocked');
    }
    expect(receiver.connections).toBe(0);
  });

  it('call a local address when private targets are allowed, and answer status, headers and body', async () => {
    receiver.respond = (_req, res) => json(res, 201, { hello: 'world' }, { 'x-trace': 'abc' });
    const response = await outboundRequest({
      url: `${receiver.url}/hook?a=1`,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-key': 'k' },
      body: '{"n":1}',
      timeoutMs: 2000,
      allowPrivate: true,
    });
    expect(response).toMatchObject({ status: 201, body: '{"hello":"world"}', truncated: false });
    expect(response.headers['x-trace']).toBe('abc');
    expect(receiver.requests[0]).toMatchObject({ method: 'POST', url: '/hook?a=1', body: '{"n":1}' });
    expect(receiver.requests[0].headers['x-key']).toBe('k');
  });

  it('never follow redirects', async () => {
    const target = await startReceiver();
    try {
      receiver.respond = (_req, res) => {
        res.writeHead(302, { location: `${target.url}/elsewhere` });
        res.end();
      };
      const response = await outboundRequest({ url: receiver.url, method: 'GET', timeoutMs: 2000, allowPrivate: true });
      expect(response.status).toBe(302);
      expect(target.connections).toBe(0);
    } finally {
      await target.close();
    }
  });

  it('time out a slow answer and read at most the bound of a large one', async () => {
    receiver.respond = (_req, res) => void setTimeout(() => json(res, 200, {}), 1500);
    const slow = await outboundRequest({ url: receiver.url, method: 'GET', timeoutMs: 300, allowPrivate: true }).catch((e) => e);
    expect(slow).toMatchObject({ kind: 'timeout' });
    expect(slow.latencyMs).toBeLessThan(1000);

    receiver.respond = (_req, res) => {
      res.writeHead(200);
      res.end('x'.repeat(100_000));
    };
    const big = await outboundRequest({ url: receiver.url, method: 'GET', timeoutMs: 2000, maxResponseBytes: 1000, allowPrivate: true });
    expect(big.body).toHaveLength(1000);
    expect(big.truncated).toBe(true);
  });

  it('report a refused connection', async () => {
    const port = receiver.port;
    await receiver.close();
    const error = await outboundRequest({ url: `http://127.0.0.1:${port}/`, method: 'GET', timeoutMs: 1000, allowPrivate: true }).catch((e) => e);
    expect(error).toMatchObject({ kind: 'connection' });
    receiver = await startReceiver();
  });
});
