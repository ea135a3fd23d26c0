// What every Node benchmark script reads from its command line.
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

/** The script's options; `pnpm run bench -- --quick` hands the script a literal `--` first, skipped. */
export function scriptArgs<const O extends Options>(
  options: O,
): ReturnType<typeof parseArgs<{ args: string[]; options: O }>>['values'] {
  const argv = process.argv.slice(2);
  return parseArgs({ args: argv[0] === '--' ? argv.slice(1) : argv, options }).values;
}

/** The `--clock` option, checked. */
export function clockArg(value: unknown): 'wall' | 'cpu' {
  if (value !== 'wall' && value !== 'cpu') throw new RangeError(`--clock must be wall or cpu, got ${String(value)}`);
  return value;
}

/**
 * Milliseconds of CPU time of this process (all its threads, microsecond resolution): time spent
 * descheduled while other work holds the cores is not counted, so on a saturated shared machine
 * it measures the code instead of the queue. Wall time is what a user waits for, and what
 * browsers offer.
 */
export function cpuNow(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}
