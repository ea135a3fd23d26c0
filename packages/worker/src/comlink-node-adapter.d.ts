// comlink ships this module's types as node-adapter.d.ts next to the .mjs, where TypeScript's
// NodeNext resolution does not look for them; this states the same signature.
declare module 'comlink/dist/esm/node-adapter.mjs' {
  import type { Endpoint } from 'comlink';
  /** Adapts a worker_threads Worker or MessagePort (on/off) to comlink's Endpoint (addEventListener). */
  export default function nodeEndpoint(nep: {
    postMessage(message: unknown, transfer?: readonly unknown[]): void;
    on(type: string, listener: (...args: any[]) => void): unknown;
    off(type: string, listener: (...args: any[]) => void): unknown;
    start?: () => void;
  }): Endpoint;
}
