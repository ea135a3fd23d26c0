export const TUSD_VERSION: string;
export const tusdPath: string;
export function tusdIsPinned(): boolean;
export function ensureTusd(): void;
export function buildHooks(): string;
export type Tusd = {
  /** The tus endpoint, `http://127.0.0.1:<port>/files/`. */
  endpoint: string;
  /** Where tusd keeps the uploads. */
  directory: string;
  /**
   * Faults of the proxy in front of tusd (`endpoint` is the proxy's): `dropAfter` drops the
   * connection of the next PATCH once that many of its bytes passed, `flipAt` flips the byte at
   * that offset of the upload on its way.
   */
  faults: { dropAfter?: number; flipAt?: number };
  /** Connections dropped so far. */
  readonly drops: number;
  /** What tusd printed so far. */
  log(): string;
  close(): Promise<void>;
};
export function startTusd(opts?: { env?: Record<string, string>; args?: string[] }): Promise<Tusd>;
