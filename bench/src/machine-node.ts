// Where the numbers came from: CPU, cores, OS and runtime, read from the machine itself.
import { readFileSync } from 'node:fs';
import { availableParallelism, cpus, release, totalmem, type } from 'node:os';

import { runtimeEngine, runtimeVersion } from './runtime-name.ts';

export interface Machine {
  readonly cpu: string;
  readonly cores: number;
  /** The CPU features that decide native SHA-256 and SIMD speed, where /proc/cpuinfo lists them. */
  readonly cpuFeatures: string[];
  readonly memoryGiB: number;
  readonly os: string;
  readonly runtime: string;
  readonly engine: string;
}

const FEATURES = ['sse4_1', 'avx2', 'avx512f', 'sha_ni'];

function cpuinfo(): string {
  try {
    return readFileSync('/proc/cpuinfo', 'utf8');
  } catch {
    return '';
  }
}

export function describeMachine(): Machine {
  const info = cpuinfo();
  const model = /^model name\s*:\s*(.+)$/m.exec(info)?.[1]?.trim() ?? cpus()[0]?.model ?? 'unknown CPU';
  const flags = new Set((/^flags\s*:\s*(.+)$/m.exec(info)?.[1] ?? '').split(/\s+/));
  return {
    cpu: model,
    cores: availableParallelism(),
    cpuFeatures: FEATURES.filter((f) => flags.has(f)),
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    os: `${type()} ${release()}`,
    runtime: runtimeVersion(),
    engine: runtimeEngine(),
  };
}
