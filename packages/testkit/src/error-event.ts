// Node 20 has EventTarget and MessageEvent but no ErrorEvent, which code that watches a Worker's
// 'error' event checks for; tests that stand in for Web Workers in Node install this one.

class ErrorEventStandIn extends Event {
  readonly message: string;
  readonly error: unknown;
  constructor(type: string, init: EventInit & { message?: string; error?: unknown } = {}) {
    super(type, init);
    this.message = init.message ?? '';
    this.error = init.error;
  }
}

/** Makes `globalThis.ErrorEvent` exist (the runtime's own where it has one). */
export function provideErrorEvent(): void {
  (globalThis as { ErrorEvent?: unknown }).ErrorEvent ??= ErrorEventStandIn;
}
