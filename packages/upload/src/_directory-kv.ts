// The key-value store Blake3FileStore keeps its hash states and records in by default: one JSON
// file per key in a directory beside the uploads, so one machine keeps resume and the record of
// a verified upload across restarts. Not @tus/utils' FileKvStore: a record is written whole under
// another name and renamed (a crash leaves the old one or the new one, never half of one, and a
// verified upload's record is what makes it final), and deleting a key that is not there is not
// an error (the verifying store deletes what an upload may not have).
import type { KvStore } from '@tus/utils';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export class DirectoryKvStore<T> implements KvStore<T> {
  readonly directory: string;
  #made: Promise<unknown> | undefined;
  #writes = 0;

  constructor(directory: string) {
    this.directory = directory;
  }

  async get(key: string): Promise<T | undefined> {
    let text: string;
    try {
      text = await readFile(this.#path(key), 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
    try {
      return JSON.parse(text) as T;
    } catch {
      // Damaged: the verifying store refuses what it cannot read, as it does a bad checksum.
      return { damaged: text.slice(0, 64) } as T;
    }
  }

  async set(key: string, value: T): Promise<void> {
    await (this.#made ??= mkdir(this.directory, { recursive: true }));
    const path = this.#path(key);
    const part = `${path}.${process.pid}-${this.#writes++}.part`;
    await writeFile(part, JSON.stringify(value));
    await rename(part, path);
  }

  async delete(key: string): Promise<void> {
    await rm(this.#path(key), { force: true });
  }

  /** A key is an upload's id and a suffix: encoded, so no key names a path outside the directory. */
  #path(key: string): string {
    return join(this.directory, `${encodeURIComponent(key)}.json`);
  }
}
