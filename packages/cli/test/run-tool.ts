// Runs b3web or b3sum with arguments that may be raw bytes (names that are not UTF-8): a
// process's arguments cannot carry such bytes from Node, so those go through printf in sh.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
// @ts-expect-error: plain .mjs shared with the bootstrap
import { b3sumPath } from '../setup/b3sum-setup.mjs';

export const b3web = fileURLToPath(new URL('../bin/b3web.js', import.meta.url));
export const b3sum: string = b3sumPath;

export type Arg = string | Uint8Array;
export type Result = { status: number | null; stdout: Buffer; stderr: string };

const octal = (bytes: Uint8Array) => Array.from(bytes, (b) => `\\${b.toString(8).padStart(3, '0')}`).join('');

/** The command for `tool` (b3web: Node and the script) with `args`, through sh when any is bytes. */
function command(tool: 'b3web' | 'b3sum', args: readonly Arg[]): [string, string[]] {
  const exe = tool === 'b3web' ? [process.execPath, b3web] : [b3sum];
  if (args.every((a) => typeof a === 'string')) return [exe[0], [...exe.slice(1), ...(args as string[])]];
  // Each argument as printf octal escapes, with a sentinel so command substitution keeps trailing newlines.
  const vars = args.map(
    (a, i) => `a${i}="$(printf '${octal(typeof a === 'string' ? Buffer.from(a) : a)}_')"; a${i}="\${a${i}%_}"`,
  );
  const script = `${vars.join('; ')}; exec ${exe.map((e) => `'${e}'`).join(' ')} ${args.map((_, i) => `"$a${i}"`).join(' ')}`;
  return ['/bin/sh', ['-c', script]];
}

export function runTool(
  tool: 'b3web' | 'b3sum',
  args: readonly Arg[],
  opts: { cwd?: string; stdin?: Uint8Array; env?: Record<string, string> } = {},
): Promise<Result> {
  const [cmd, argv] = command(tool, args);
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, argv, {
      cwd: opts.cwd,
      env: { ...process.env, RUST_BACKTRACE: '0', RUST_LIB_BACKTRACE: '0', ...opts.env },
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.on('error', reject);
    child.on('close', (status) =>
      resolve({ status, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8') }),
    );
    child.stdin.on('error', () => {}); // a tool that exits before reading all of stdin
    child.stdin.end(opts.stdin ?? new Uint8Array(0));
  });
}
