/**
 * The mirrors of one download and how ranges go to them. Each source keeps what it did: bytes
 * that verified, its measured throughput, and its faults. A fault that proves the source serves
 * something else (a group that does not verify, a wrong `Content-Range`, 200 for a range, a
 * status saying the content is not there, a body longer than asked) drops it at once; a fault
 * that may pass (5xx, a reset, a stall, a short body) is a strike that demotes it, and
 * `MAX_STRIKES` strikes drop it.
 * @module
 */
import type { ResolvedSource, SourceProgress, Strategy } from './download-options.js';
import type { SourceFailure } from './errors.js';

export const MAX_STRIKES = 3;

export class Source {
  readonly url: string;
  readonly outboardUrl: string;
  readonly index: number;
  inflight = 0;
  verifiedBytes = 0;
  /** Bytes per millisecond, smoothed over finished requests; undefined until one finishes. */
  rate: number | undefined;
  strikes = 0;
  dropped = false;
  readonly faults: string[] = [];

  constructor(source: ResolvedSource, index: number) {
    this.url = source.url;
    this.outboardUrl = source.outboard ?? `${source.url}.obao`;
    this.index = index;
  }

  get state(): SourceProgress['state'] {
    return this.dropped ? 'dropped' : this.strikes > 0 ? 'demoted' : 'active';
  }

  /** A finished request of `bytes` that took `ms`. */
  measured(bytes: number, ms: number): void {
    const rate = bytes / Math.max(ms, 1);
    this.rate = this.rate === undefined ? rate : 0.7 * this.rate + 0.3 * rate;
  }

  progress(): SourceProgress {
    return { url: this.url, verifiedBytes: this.verifiedBytes, faults: this.faults.length, state: this.state };
  }

  failure(): SourceFailure {
    return { url: this.url, faults: this.faults.slice(), dropped: this.dropped };
  }
}

/**
 * A fault of one request, with whether it proves the source wrong (`drop`) or may pass, and
 * `reason`: the message without the bytes it concerns.
 */
export class SourceFault extends Error {
  readonly drop: boolean;
  readonly reason: string;
  constructor(message: string, drop: boolean, reason: string = message) {
    super(message);
    this.name = 'SourceFault';
    this.drop = drop;
    this.reason = reason;
  }
}

export class SourcePool {
  readonly sources: Source[];
  readonly #strategy: Strategy;
  #turn = 0;

  constructor(sources: readonly ResolvedSource[], strategy: Strategy) {
    this.sources = sources.map((s, i) => new Source(s, i));
    this.#strategy = strategy;
  }

  get live(): Source[] {
    return this.sources.filter((s) => !s.dropped);
  }

  /** Records `fault` against `source`; returns whether the source is now dropped. */
  fault(source: Source, fault: SourceFault): boolean {
    source.faults.push(fault.message);
    if (fault.drop) source.dropped = true;
    else if (++source.strikes >= MAX_STRIKES) source.dropped = true;
    return source.dropped;
  }

  /**
   * The source for the next range: among live sources not in `avoid` (those that failed this
   * range), else among all live ones; undefined when none is live.
   */
  pick(avoid: ReadonlySet<Source>): Source | undefined {
    const fresh = this.live.filter((s) => !avoid.has(s));
    const candidates = fresh.length > 0 ? fresh : this.live;
    if (candidates.length === 0) return undefined;
    switch (this.#strategy) {
      case 'in-order':
        return candidates.reduce((best, s) => (s.strikes < best.strikes ? s : best));
      case 'round-robin': {
        const turn = this.#turn++;
        return candidates[turn % candidates.length];
      }
      case 'fastest':
        return candidates.reduce((best, s) => (score(s) > score(best) ? s : best));
    }
  }
}

/**
 * Throughput a new range would get: the measured rate shared with the ranges in flight, cut by
 * strikes. A source not yet measured is tried first, one range at a time.
 */
function score(s: Source): number {
  const rate = s.rate === undefined ? (s.inflight === 0 ? Number.MAX_VALUE : 0) : s.rate;
  return rate / (s.inflight + 1) / 4 ** s.strikes;
}
