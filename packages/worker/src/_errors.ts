// The errors of the worker boundary: a worker that died, and errors thrown in a worker.
//
// An error thrown in a worker comes back as the class it was thrown as, with its name, message,
// stack and own enumerable fields (a Node system error's code/errno/syscall/path, a package
// error's reason), so `instanceof TypeError`, `e.name === 'NotReadableError'` and `e.reason` work
// on the caller's side. The worker side writes the wire form (sendErrorsWhole); the calling side
// rebuilds it (reviveError) from the classes every engine has, plus the classes of the calling
// package that it names (KnownErrors): the worker package knows no other package's errors.
import { transferHandlers, type TransferHandler } from 'comlink';

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

/** What a field of an error may hold to cross: values structured clone copies as they are. */
export type WireValue = string | number | boolean | bigint | null | undefined;

/**
 * An Error as it crosses from a worker: the fields comlink keeps (name, message, stack), which
 * constructor to rebuild it with, and its other own enumerable fields whose values are primitives.
 */
export type WireError = {
  name: string;
  message: string;
  stack?: string;
  /** 'DOMException' for DOMExceptions (NotReadableError, AbortError...), else the nearest native Error class. */
  errorClass: string;
  fields: Record<string, WireValue>;
};

/**
 * Error classes of the calling package, by the `name` their instances carry (a key, not the
 * class's own name, which a minifier may change). A class is rebuilt without running its
 * constructor, as an instance of its prototype holding the fields that crossed: its state must be
 * own enumerable fields of primitive values (as CheckpointError's `reason` is).
 */
export type KnownErrors = Readonly<Record<string, abstract new (...args: never[]) => Error>>;

const NATIVE_ERRORS: Readonly<Record<string, ErrorConstructor>> = {
  TypeError,
  RangeError,
  SyntaxError,
  ReferenceError,
  EvalError,
  URIError,
  Error,
};

/** Fields that the wire carries on their own, or that must not be written onto the rebuilt error. */
const NOT_FIELDS = new Set(['name', 'message', 'stack', '__proto__', 'constructor']);

function isDomException(e: object): boolean {
  return typeof DOMException !== 'undefined' && e instanceof DOMException;
}

function isWireValue(v: unknown): v is WireValue {
  return v === null || (typeof v !== 'object' && typeof v !== 'function' && typeof v !== 'symbol');
}

/** The plain-object form of an error thrown in a worker (the worker side of the transfer). */
export function toWireError(e: Error): WireError {
  const fields: Record<string, WireValue> = {};
  for (const key of Object.keys(e)) {
    const value = (e as unknown as Record<string, unknown>)[key];
    if (!NOT_FIELDS.has(key) && isWireValue(value)) fields[key] = value;
  }
  return {
    name: e.name,
    message: e.message,
    stack: e.stack,
    errorClass: isDomException(e) ? 'DOMException' : nativeClassName(e),
    fields,
  };
}

function nativeClassName(e: Error): string {
  for (const name of Object.keys(NATIVE_ERRORS)) if (e instanceof NATIVE_ERRORS[name]) return name;
  return 'Error';
}

function defineOwn(target: object, key: string, value: unknown, enumerable: boolean): void {
  Object.defineProperty(target, key, { value, writable: true, configurable: true, enumerable });
}

/**
 * Rebuilds an error that came from a worker: as a class of `known` when its name is one of
 * theirs, else as a DOMException or the native class it was. comlink hands over an Error with the
 * wire fields assigned to it; anything without our `errorClass` field (a DataCloneError raised by
 * postMessage on this side, say) is returned unchanged.
 */
export function reviveError(e: unknown, known: KnownErrors = {}): unknown {
  if (typeof e !== 'object' || e === null || typeof (e as Partial<WireError>).errorClass !== 'string') return e;
  const wire = e as WireError;
  let out: Error;
  if (Object.hasOwn(known, wire.name)) out = Reflect.construct(Error, [wire.message], known[wire.name]) as Error;
  else if (wire.errorClass === 'DOMException' && typeof DOMException !== 'undefined')
    out = new DOMException(wire.message, wire.name);
  else
    out = new ((Object.hasOwn(NATIVE_ERRORS, wire.errorClass) && NATIVE_ERRORS[wire.errorClass]) || Error)(
      wire.message,
    );
  if (out.name !== wire.name) defineOwn(out, 'name', wire.name, false);
  if (wire.stack !== undefined) defineOwn(out, 'stack', wire.stack, false);
  const fields = typeof wire.fields === 'object' && wire.fields !== null ? wire.fields : {};
  for (const key of Object.keys(fields)) if (!NOT_FIELDS.has(key)) defineOwn(out, key, fields[key], true);
  return out;
}

let sendingWhole = false;

/**
 * Makes errors thrown by calls served on this thread cross whole (toWireError): comlink alone
 * keeps only name, message and stack. The worker side of every handle calls it before `expose`;
 * the handler belongs to this thread's copy of comlink, so it is set once and affects nothing else.
 */
export function sendErrorsWhole(): void {
  if (sendingWhole) return;
  sendingWhole = true;
  const base = transferHandlers.get('throw') as TransferHandler<{ value: unknown }, unknown>;
  transferHandlers.set('throw', {
    canHandle: base.canHandle,
    serialize(thrown) {
      const { value } = thrown;
      const isError = value instanceof Error || (typeof DOMException !== 'undefined' && value instanceof DOMException);
      return isError ? [{ isError: true, value: toWireError(value as Error) }, []] : base.serialize(thrown);
    },
    deserialize: base.deserialize,
  } satisfies TransferHandler<{ value: unknown }, unknown>);
}
