// The worker's view of the platform in browsers: it talks over its global scope and never
// reads paths.
import type { Endpoint } from 'comlink';
import type { OpenFile } from './_hash-range.js';

export function parentEndpoint(): Endpoint {
  return globalThis as unknown as Endpoint;
}

export const openFile: OpenFile = async (file) => {
  throw new TypeError(`file paths are read only in Node, got ${JSON.stringify(file.path)}`);
};
