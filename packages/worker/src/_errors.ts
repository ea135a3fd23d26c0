// The errors of the worker boundary: a worker that died, and errors thrown in a worker.
//
// Errors that cross the worker boundary keep their name, message, stack and, for Node system
// errors, code/errno/syscall/path; they come back as the class they were thrown as, so
// `instanceof TypeError` and `e.name === 'NotReadableError'` work on the caller's side.
import type { WireError } from './protocol.js';

/** A worker stopped (crashed, was terminated, ran out of memory, stopped answering) before answering. */
export class WorkerDiedError extends Error {
  override name = 'WorkerDiedError';
}

/**
 * The pool's default worker could not be started at all (its script would not load): starting
 * another would fail the same way, so the hash fails at once. The message names the fix.
 */
export class WorkerStartError extends WorkerDiedError {
  override name = 'WorkerStartError';
}

const NATIVE_ERRORS: Readonly<Record<string, ErrorConstructor>> = {
  Error,
  TypeError,
  RangeError,
  SyntaxError,
  ReferenceError,
  EvalError,
  URIError,
};

function isDomException(e: object): boolean {
  return typeof DOMException !== 'undefined' && e instanceof DOMException;
}

/** The plain-object form of an error thrown in a worker (the worker side of the transfer). */
export function toWireError(e: Error): WireError {
  const wire: WireError = {
    name: e.name,
    message: e.message,
    stack: e.stack,
    errorClass: isDomException(e) ? 'DOMException' : nativeClassName(e),
  };
  const sys = e as Error & Partial<Record<'code' | 'errno' | 'syscall' | 'path', unknown>>;
  if (typeof sys.code === 'string' || typeof sys.code === 'number') wire.code = sys.code;
  if (typeof sys.errno === 'number') wire.errno = sys.errno;
  if (typeof sys.syscall === 'string') wire.syscall = sys.syscall;
  if (typeof sys.path === 'string') wire.path = sys.path;
  return wire;
}

function nativeClassName(e: Error): string {
  for (const name of ['TypeError', 'RangeError', 'SyntaxError', 'ReferenceError', 'EvalError', 'URIError']) {
    if (e instanceof NATIVE_ERRORS[name]) return name;
  }
  return 'Error';
}

/**
 * Rebuilds an error that came from a worker. comlink hands over an Error with the wire fields
 * assigned to it; anything without our `errorClass` field (a DataCloneError raised by
 * postMessage on this side, say) is returned unchanged.
 */
export function reviveError(e: unknown): unknown {
  if (typeof e !== 'object' || e === null || typeof (e as Partial<WireError>).errorClass !== 'string') return e;
  const wire = e as WireError;
  let out: Error;
  if (wire.errorClass === 'DOMException' && typeof DOMException !== 'undefined')
    out = new DOMException(wire.message, wire.name);
  else {
    out = new (NATIVE_ERRORS[wire.errorClass] ?? Error)(wire.message);
    if (out.name !== wire.name)
      Object.defineProperty(out, 'name', { value: wire.name, writable: true, configurable: true });
  }
  if (wire.stack !== undefined)
    Object.defineProperty(out, 'stack', { value: wire.stack, writable: true, configurable: true });
  for (const key of ['code', 'errno', 'syscall', 'path'] as const) {
    if (wire[key] !== undefined)
      Object.defineProperty(out, key, { value: wire[key], writable: true, configurable: true, enumerable: true });
  }
  return out;
}
