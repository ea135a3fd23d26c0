// Which JavaScript runtime runs the Node benchmark: the same script measures Node, Deno and Bun,
// each writing its own section of docs/BENCHMARKS.md and its own results file.
export type RuntimeId = 'node' | 'deno' | 'bun';

export const RUNTIME_TITLES: Record<RuntimeId, string> = { node: 'Node', deno: 'Deno', bun: 'Bun' };

export function runtimeId(): RuntimeId {
  if (typeof process !== 'undefined' && process.versions.bun !== undefined) return 'bun';
  if ('Deno' in globalThis) return 'deno';
  return 'node';
}

/** "Deno 2.9.6", "Bun 1.4.5", "Node 20.20.2". */
export function runtimeVersion(id: RuntimeId = runtimeId()): string {
  const versions = process.versions as Record<string, string | undefined>;
  return `${RUNTIME_TITLES[id]} ${(id === 'node' ? versions.node : versions[id]) ?? 'unknown'}`;
}

/** The engine under the runtime: V8 for Node and Deno, JavaScriptCore for Bun. */
export function runtimeEngine(id: RuntimeId = runtimeId()): string {
  const v8 = process.versions.v8;
  return id === 'bun' ? `JavaScriptCore (WebKit ${process.versions.webkit?.slice(0, 7) ?? 'unknown'})` : `V8 ${v8}`;
}
