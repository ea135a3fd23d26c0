// Starting a module worker shipped in a package, so that it comes up whatever bundled the page.
//
// First the worker file beside the module that starts it, by a URL relative to its
// import.meta.url: Vite builds, Vite 8 dev, webpack, Rspack and Parcel emit it, a page with no
// bundler needs nothing, and a Content-Security-Policy needs nothing beyond worker-src 'self'.
// Where the URL leads nowhere (Vite 6/7 dev serves pre-bundled dependencies from .vite/deps
// without it; esbuild and plain Rollup copy no assets; an iife bundle has no import.meta.url),
// the same worker starts from a blob: URL of its source, loaded only then. A page whose CSP
// refuses blob: workers gets a WorkerStartError naming the fixes.
//
// A worker has started once it posts its ready message; an 'error' event before that is a failed
// start. Messages wait here until then, so nothing is ever posted twice. Each way of starting is
// tried once per page and kind of worker: after a failure, later workers skip it, and once both
// failed every worker fails at once, without a request.
import { WorkerStartError } from './_errors.js';

/** One kind of worker: where it comes from and how it says it is ready. */
export type WorkerStartSpec = {
  /** What error messages call it ("the pool's worker"). */
  readonly name: string;
  /** The package that ships it, for the fixes the error names. */
  readonly pkg: string;
  /** The worker file, relative to the module that starts it ('./worker.bundle.js'). */
  readonly file: string;
  /** That module's import.meta.url (an iife bundle has none), to say where the file was looked for. */
  readonly base: unknown;
  /**
   * `new Worker(new URL('./the-file.js', import.meta.url), { type: 'module' })`, written in the
   * module beside the file: bundlers recognise the worker file only in exactly that form.
   */
  readonly fromFile: () => Worker;
  /** The worker's bundled source, imported only when the file did not start. */
  readonly source: () => Promise<string>;
  /** What the worker posts once it serves requests (comlink ignores it: it has no id). */
  readonly ready: unknown;
};

/** A kind of worker and, for the page's life, why each way of starting it failed. */
export class WorkerStartup {
  readonly spec: WorkerStartSpec;
  readonly failed: { url?: string; blob?: string } = {};
  #blobUrl: Promise<string> | undefined;

  constructor(spec: WorkerStartSpec) {
    this.spec = spec;
  }

  sourceBlobUrl(): Promise<string> {
    this.#blobUrl ??= this.spec
      .source()
      .then((source) => URL.createObjectURL(new Blob([source], { type: 'text/javascript' })));
    return this.#blobUrl;
  }

  /** The error once both ways failed: where the file was looked for, why each way failed, the fix. */
  startError(): WorkerStartError {
    const { name, pkg, file, base } = this.spec;
    let url: string | undefined;
    try {
      if (typeof base === 'string') url = new URL(file, base).href;
    } catch {
      url = undefined;
    }
    const where = url ?? `${file} (this bundle has no import.meta.url)`;
    const blobs = "blob: workers (Content-Security-Policy worker-src 'self' blob:)";
    const fix = url?.includes('/.vite/deps/')
      ? `In Vite's dev server, add optimizeDeps: { exclude: ['${pkg}'] } to vite.config, or allow ${blobs}.`
      : `Allow ${blobs}, or serve ${pkg}/dist/${file.replace(/^\.\//, '')} where the bundle looks for it, or pass createWorker (see the ${pkg} README).`;
    return new WorkerStartError(
      `${name} did not start: ${where} did not load (${this.failed.url}), and a blob: worker of its source did not start either (${this.failed.blob}). ${fix}`,
    );
  }
}

function describeFailure(e: unknown): string {
  if (e instanceof ErrorEvent && e.message) return e.message;
  if (e instanceof Error) return `${e.name}: ${e.message}`;
  return typeof e === 'object' && e !== null && 'type' in e ? `an '${String(e.type)}' event` : String(e);
}

/**
 * A Worker, as comlink and the pool use one, that starts the real worker by the first way that
 * works. Its 'error' event carries a WorkerStartError as `error` when no way did.
 */
export class StartingWorker extends EventTarget {
  readonly #startup: WorkerStartup;
  #worker: Worker | undefined;
  /** Messages posted before the worker was ready; undefined once it is, or once this ended. */
  #queue: [unknown, Transferable[]][] | undefined = [];
  #ended = false;

  constructor(startup: WorkerStartup) {
    super();
    this.#startup = startup;
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
    const { failed, spec } = this.#startup;
    if (failed.url === undefined) {
      const why = await this.#try(spec.fromFile);
      if (why === undefined || this.#ended) return;
      failed.url ??= why;
    }
    if (failed.blob === undefined) {
      const why = await this.#try(async () => new Worker(await this.#startup.sourceBlobUrl(), { type: 'module' }));
      if (why === undefined || this.#ended) return;
      failed.blob ??= why;
    }
    if (this.#ended) return;
    const error = this.#startup.startError();
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
    const ready = this.#startup.spec.ready;
    return new Promise((resolve) => {
      let started = false;
      worker.addEventListener('message', (e) => {
        if (started) return void this.dispatchEvent(new MessageEvent('message', { data: e.data }));
        if (e.data !== ready) return;
        started = true;
        const queue = this.#queue ?? [];
        this.#queue = undefined;
        for (const [message, transfer] of queue) worker.postMessage(message, transfer);
        resolve(undefined);
      });
      worker.addEventListener('messageerror', () => {
        if (started) this.dispatchEvent(new MessageEvent('messageerror'));
      });
      worker.addEventListener('error', (e) => {
        e.preventDefault();
        if (started) {
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
