// The Download page's side of the demo server's mirrors (servers/download-mirrors.ts): the
// asset's facts, each mirror's URL in this page's session, and the switches that make a mirror
// hostile. A session is one page load: its switches and the server's counts are its own.

export const MIRRORS = ['a', 'b'] as const;
export type Mirror = (typeof MIRRORS)[number];

export type AssetInfo = { name: string; size: number; root: string; chunkGroupLog: number };

/** The modes the server knows, in words. */
export const MODES: readonly (readonly [string, string])[] = [
  ['honest', 'Honest'],
  ['flip', 'Flips a byte in some groups'],
  ['stall', 'Stalls half-way through each answer'],
  ['wrong-length', 'Sends more bytes than asked'],
  ['wrong-status', 'Answers 503'],
  ['gone', 'Goes away (closes every connection)'],
];

/** Speeds in bytes per second (0: as fast as the machine goes). */
export const RATES: readonly (readonly [number, string])[] = [
  [0, 'No limit'],
  [50e6, '400 Mbit/s'],
  [12.5e6, '100 Mbit/s'],
  [2.5e6, '20 Mbit/s'],
];
export const DEFAULT_RATE = 12.5e6;

export function newSession(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

const base = () => new URL('./mirrors/', location.href);

export async function assetInfo(name: string): Promise<AssetInfo> {
  const res = await fetch(new URL(`asset/${encodeURIComponent(name)}`, base()));
  if (!res.ok) throw new Error(`the demo server has no asset ${JSON.stringify(name)} (${res.status})`);
  return (await res.json()) as AssetInfo;
}

/** The asset's URL on `mirror` in `session` (its outboard is the same URL + `.obao`). */
export function mirrorUrl(session: string, mirror: Mirror, asset: string): string {
  return new URL(`${session}/${mirror}/${encodeURIComponent(asset)}.bin`, base()).href;
}

export async function setBehaviour(session: string, mirror: Mirror, mode: string, rate: number): Promise<void> {
  const res = await fetch(new URL(`${session}/${mirror}/behaviour`, base()), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ mode, rate }),
  });
  if (!res.ok) throw new Error(`mirror ${mirror.toUpperCase()} refused the switch: ${await res.text()}`);
}
