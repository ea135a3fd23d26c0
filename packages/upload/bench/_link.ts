// A model of a network link for the upload benchmarks: a TCP proxy on 127.0.0.1 that forwards
// the browser's bytes to the server at no more than a given rate (a token bucket paced per
// piece), and the answers back as they come. It models a link's bandwidth, not its latency or
// losses: a real 1 Gbit/s link to a remote server is where the network, not the CPU, sets the pace.
import { createServer, connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** Forwards 127.0.0.1:<port> to `target` (an http://127.0.0.1:port/... URL) at `bytesPerSecond` upstream. */
export async function startLink(
  target: string,
  bytesPerSecond: number,
): Promise<{ endpoint: string; close(): Promise<void> }> {
  const url = new URL(target);
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(url.port), url.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    // Each piece may leave once the link would have carried everything before it.
    let free = performance.now();
    client.on('data', (piece: Buffer) => {
      const now = performance.now();
      free = Math.max(free, now) + (piece.length / bytesPerSecond) * 1000;
      upstream.write(piece);
      if (free - now > 1) {
        client.pause();
        setTimeout(() => client.resume(), free - now);
      }
    });
    client.on('end', () => upstream.end());
    upstream.pipe(client);
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
