// A model of a network link for the benchmarks: a TCP proxy on 127.0.0.1 that carries one
// direction of its connections (the browser's bytes to the server for uploads, the answers back
// for downloads) at no more than a given rate, all connections together (a token bucket paced per
// piece), and the other as it comes. It models a link's bandwidth, not its latency or losses: a real 1 Gbit/s link to a
// remote server is where the network, not the CPU, sets the pace.
import { createServer, connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * Forwards 127.0.0.1:<port> to `target` (an http://127.0.0.1:port/... URL) at `bytesPerSecond`
 * upstream (the client's bytes: uploads), or downstream (the server's answers: downloads).
 */
export async function startLink(
  target: string,
  bytesPerSecond: number,
  direction: 'upstream' | 'downstream' = 'upstream',
): Promise<{ endpoint: string; close(): Promise<void> }> {
  const url = new URL(target);
  const sockets = new Set<Socket>();
  // One link, shared by every connection through it (a download's parallel ranges from one
  // mirror share that mirror's bandwidth): each piece may leave once the link would have carried
  // everything before it, on any connection.
  let free = performance.now();
  const server = createServer((client) => {
    const upstream = connect(Number(url.port), url.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    const [from, to] = direction === 'upstream' ? [client, upstream] : [upstream, client];
    from.on('data', (piece: Buffer) => {
      const now = performance.now();
      free = Math.max(free, now) + (piece.length / bytesPerSecond) * 1000;
      to.write(piece);
      if (free - now > 1) {
        from.pause();
        setTimeout(() => from.resume(), free - now);
      }
    });
    from.on('end', () => to.end());
    to.pipe(from);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const linked = new URL(target);
  linked.port = String((server.address() as AddressInfo).port);
  return {
    endpoint: linked.href,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
