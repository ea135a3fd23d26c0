// Runs one download into a directory store and never returns on its own accord: the test kills
// it with SIGKILL part way. argv: url root directory rangeSize
import { download } from '../src/index.ts';
import { directoryStore } from '../src/directory-store.ts';

const [url, root, directory, rangeSize] = process.argv.slice(2);
await download(url, { root, store: directoryStore(directory), rangeSize: Number(rangeSize), concurrency: 2 });
process.stdout.write('done\n');
