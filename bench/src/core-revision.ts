// Which core the numbers belong to: the last commit that touched packages/core, and whether the
// working tree had changes on top of it when the run started.
import { execFileSync } from 'node:child_process';

export interface CoreRevision {
  readonly commit: string;
  readonly dirty: boolean;
}

export function coreRevision(repoRoot: string): CoreRevision {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8' }).trim();
  try {
    return {
      commit: git('log', '-1', '--format=%h', '--', 'packages/core'),
      dirty: git('status', '--porcelain', '--', 'packages/core/src', 'packages/core/package.json') !== '',
    };
  } catch {
    return { commit: 'unknown', dirty: false };
  }
}
