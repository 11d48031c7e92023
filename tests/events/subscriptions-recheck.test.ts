import { closeRevoked } from '../../src/graphql/subscriptions';

/** A socket that records how it was closed. */
const socket = () => {
  const closed: number[] = [];
  return { closed, close: (code?: number) => void closed.push(code ?? 0) };
};

describe('the keep-alive token check', () => {
  it('closes (4403) the connections whose tokens are gone, and only those', async () => {
    const [kept, revoked] = [socket(), socket()];
    const connections = new Map([
      [kept, { tokenHash: 'a' }],
      [revoked, { tokenHash: 'b' }],
    ]);
    const asked: string[][] = [];
    await closeRevoked(connections, async (hashes) => (asked.push(hashes), new Set(['a'])));
    expect(asked).toEqual([['a', 'b']]);
    expect([kept.closed, revoked.closed]).toEqual([[], [4403]]);
  });

  it('leaves alone a connection that opens while the tokens are looked up', async () => {
    const [open, opening] = [socket(), socket()];
    const connections = new Map([[open, { tokenHash: 'a' }]]);
    await closeRevoked(connections, async () => {
      connections.set(opening, { tokenHash: 'c' }); // checked as it opened; not in this answer
      return new Set(['a']);
    });
    expect([open.closed, opening.closed]).toEqual([[], []]);
  });
});
