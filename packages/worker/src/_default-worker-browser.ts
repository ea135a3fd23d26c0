// The pool's own worker in browsers, started so that it comes up whatever bundled the page.
//
// First the worker file beside this module, by a URL relative to import.meta.url: Vite builds,
// Vite 8 dev, webpack, Rspack and Parcel emit it, a page with no bundler needs nothing, and a
// Content-Security-Policy needs nothing beyond worker-src 'self'. Where the URL leads nowhere
// (Vite 6/7 dev serves pre-bundled dependencies from .vite/deps without it; esbuild and plain
// Rollup copy no assets; an iife bundle has no import.meta.url), the same worker starts from a
// blob: URL of its source, which ./worker-source.js holds as a string and is loaded only then.
// A page whose CSP refuses blob: workers gets a WorkerStartError naming the fixes.
//
// A worker has started once it posts WORKER_READY; an 'error' event before that is a failed
// start. Messages wait here until then, so nothing is ever posted twice. Each way of starting is
// tried once per page: after a failure, later workers skip it, and once both failed every worker
// fails at once, without a request.
import { WorkerStartError } from './_errors.js';
import { WORKER_READY } from './protocol.js';

/** Why each way of starting failed, once it has. */
const failed: { url?: string; blob?: string } = {};
let blobUrl: Promise<string> | undefined;

function startFromFile(): Worker {
  // Bundlers recognise the worker file only in exactly this form: a literal path, import.meta.url,
  // inside new Worker(). Anything else and they leave the file out.
  return new Worker(new URL('./worker.bundle.js', import.meta.url), { type: 'module' });
}

async function sourceBlobUrl(): Promise<string> {
  blobUrl ??= import('./worker-source.js').then(({ default: source }) =>
    URL.createObjectURL(new Blob([source], { type: 'text/javascript' })),
  );
  return blobUrl;
}

function describeFailure(e: unknown): string {
  if (e instanceof ErrorEvent && e.message) return e.message;
  if (e instanceof Error) return `${e.name}: ${e.message}`;
  return typeof e === 'object' && e !== null && 'type' in e ? `an '${String(e.type)}' event` : String(e);
}

/** The one-line fix for where the worker file was looked for. */
function fixFor(url: string | undefined): string {
  if (url?.includes('/.vite/deps/')) {
    return "In Vite's dev server, add optimizeDeps: { exclude: ['@blake3-web/worker'] } to vite.config, or allow blob: workers (Content-Security-Policy worker-src 'self' blob:).";
  }
  return "Allow blob: workers (Content-Security-Policy worker-src 'self' blob:), or serve @blake3-web/worker/dist/worker.bundle.js where the bundle looks for it, or pass createWorker (see the @blake3-web/worker README).";
}

function startError(): WorkerStartError {
  // Where the worker file was looked for, for the message; written so that no bundler takes it
  // for a second reference to the file. An iife bundle has no import.meta.url.
  const file = './worker.bundle.js';
  const here: unknown = import.meta.url;
  let url: string | undefined;
  try {
    if (typeof here === 'string') url = new URL(file, here).href;
  } catch {
    url = undefined;
  }
  const where = url ?? `${file} (this bundle has no import.meta.url)`;
  return new WorkerStartError(
    `the pool's worker did not start: ${where} did not load (${failed.url}), and a blob: worker of its source did not start either (${failed.blob}). ${fixFor(url)}`,
  );
}

/**
 * A Worker, as the pool and comlink use one, that starts the real worker by the first way that
 * works. Its 'error' event carries a WorkerStartError as `error` when no way did.
 */
export class DefaultWorker extends EventTarget {
  #worker: Worker | undefined;
  /** Messages posted before the worker was ready; undefined once it is, or once this ended. */
  #queue: [unknown, Transferable[]][] | undefined = [];
  #ended = false;

  constructor() {
    super();
    void this.#start();
  }

  postMessage(message: unknown, transfer: Transferable[] = []): void {
    if (this.#queue) this.#queue.push([message, transfer]);
    else if (!this.#ended) this.#worker?.postMessage(message, transfer);
  }

  terminate(): void {
    this.#ended = true;
    this.#queue = undefined;
    this.#worker?.terminate();
  }

  async #start(): Promise<void> {
    // Listeners attach after the constructor: nothing may be reported before then.
    await null;
    if (failed.url === undefined) {
      const why = await this.#try(startFromFile);
      if (why === undefined || this.#ended) return;
      failed.url ??= why;
    }
    if (failed.blob === undefined) {
      const why = await this.#try(async () => new Worker(await sourceBlobUrl(), { type: 'module' }));
      if (why === undefined || this.#ended) return;
      failed.blob ??= why;
    }
    if (this.#ended) return;
    const error = startError();
    this.#ended = true;
    this.#queue = undefined;
    this.dispatchEvent(new ErrorEvent('error', { message: error.message, error, cancelable: true }));
  }

  /** Starts a worker; resolves undefined once it is ready, or why it did not start. */
  async #try(create: () => Worker | Promise<Worker>): Promise<string | undefined> {
    let worker: Worker;
    try {
      worker = await create();
    } catch (e) {
      return describeFailure(e);
    }
    if (this.#ended) {
      worker.terminate();
      return undefined;
    }
    this.#worker = worker;
    return new Promise((resolve) => {
      let ready = false;
      worker.addEventListener('message', (e) => {
        if (ready) return void this.dispatchEvent(new MessageEvent('message', { data: e.data }));
        if (e.data !== WORKER_READY) return;
        ready = true;
        const queue = this.#queue ?? [];
        this.#queue = undefined;
        for (const [message, transfer] of queue) worker.postMessage(message, transfer);
        resolve(undefined);
      });
      worker.addEventListener('messageerror', () => {
        if (ready) this.dispatchEvent(new MessageEvent('messageerror'));
      });
      worker.addEventListener('error', (e) => {
        e.preventDefault();
        if (ready) {
          this.dispatchEvent(new ErrorEvent('error', { message: e.message, error: e.error, cancelable: true }));
          return;
        }
        worker.terminate();
        if (this.#worker === worker) this.#worker = undefined;
        resolve(describeFailure(e));
      });
    });
  }
}
