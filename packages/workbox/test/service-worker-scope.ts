// Just enough of a service worker's global scope for Workbox's precaching to run in Node: an
// in-memory CacheStorage, ExtendableEvent/FetchEvent, `self` and `location`, and a fetch that a
// test answers. Workbox runs its development build here (NODE_ENV is unset), with its checks.

type Handler = (request: Request) => Response | Promise<Response>;

class MemoryCache {
  readonly entries = new Map<string, Response>();

  async match(request: RequestInfo | URL): Promise<Response | undefined> {
    return this.entries.get(urlOf(request))?.clone();
  }

  async put(request: RequestInfo | URL, response: Response): Promise<void> {
    // As a real cache does: the body is read whole before the entry exists.
    const body = await response.arrayBuffer();
    this.entries.set(
      urlOf(request),
      new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers }),
    );
  }

  async delete(request: RequestInfo | URL): Promise<boolean> {
    return this.entries.delete(urlOf(request));
  }

  async keys(): Promise<Request[]> {
    return [...this.entries.keys()].map((url) => new Request(url));
  }
}

class MemoryCacheStorage {
  readonly caches = new Map<string, MemoryCache>();

  async open(name: string): Promise<MemoryCache> {
    let cache = this.caches.get(name);
    if (!cache) this.caches.set(name, (cache = new MemoryCache()));
    return cache;
  }

  async match(request: RequestInfo | URL, opts: { cacheName?: string } = {}): Promise<Response | undefined> {
    const names = opts.cacheName === undefined ? [...this.caches.keys()] : [opts.cacheName];
    for (const name of names) {
      const hit = await this.caches.get(name)?.match(request);
      if (hit) return hit;
    }
    return undefined;
  }

  async keys(): Promise<string[]> {
    return [...this.caches.keys()];
  }

  async delete(name: string): Promise<boolean> {
    return this.caches.delete(name);
  }
}

function urlOf(request: RequestInfo | URL): string {
  return typeof request === 'string' ? request : request instanceof URL ? request.href : request.url;
}

export class ExtendableEvent extends Event {
  readonly #pending: Promise<unknown>[] = [];

  waitUntil(promise: Promise<unknown>): void {
    this.#pending.push(promise);
  }

  /** What the browser does at the end of install: the event fails if any waitUntil promise does. */
  settled(): Promise<unknown[]> {
    return Promise.all(this.#pending);
  }
}

export class FetchEvent extends ExtendableEvent {
  readonly request: Request;
  constructor(type: string, init: { request: Request }) {
    super(type);
    this.request = init.request;
  }
}

/** Installs the globals at `scope` (the service worker's URL); `respond` answers every fetch. */
export function serviceWorkerScope(scriptUrl: string) {
  const storage = new MemoryCacheStorage();
  const requests: string[] = [];
  let respond: Handler = () => new Response('no handler', { status: 500 });
  Object.assign(globalThis, {
    self: globalThis,
    location: new URL(scriptUrl),
    caches: storage,
    ExtendableEvent,
    FetchEvent,
    // Workbox's development build logs every step; the tests read outcomes instead.
    __WB_DISABLE_DEV_LOGS: true,
    fetch: async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      requests.push(request.url);
      return respond(request);
    },
  });
  return {
    storage,
    requests,
    respondWith(handler: Handler) {
      respond = handler;
    },
  };
}
