// Reading files by path where there are no paths: every browser-side reader of a task's source.
import type { OpenFile } from './_range-readers.js';

export const openFileUnsupported: OpenFile = async (file) => {
  throw new TypeError(`file paths are read only in Node, got ${JSON.stringify(file.path)}`);
};
