import { createVerifiedFetch, download } from '@blake3-web/download';
import { asyncBufferFromUrl, parquetReadObjects } from 'hyparquet';
import { cities } from './pinned.js';

// The table this site publishes, its root pinned at build time (scripts/publish-data.mjs).
const url = new URL('cities.parquet', location.href).href;
const root = cities.root;

async function show(output, run) {
  output.value = 'working';
  try {
    output.value = await run();
  } catch (e) {
    output.value = `${e.name}: ${e.message}`;
  }
}

// The package README's first snippet: the whole file, every 16 KiB group checked on arrival.
const downloadOutput = document.querySelector('#download');
void show(downloadOutput, async () => {
  const blob = await download([url], {
    root, // pinned at build time
    onProgress: ({ verifiedBytes, totalBytes }) => (downloadOutput.title = `${verifiedBytes} / ${totalBytes}`),
  });
  return `${blob.size} bytes`;
});

// A library that takes a custom fetch, unchanged: hyparquet asks for the file's length (HEAD)
// and the byte ranges it needs, and each is answered from the verified download.
void show(document.querySelector('#parquet'), async () => {
  const verifiedFetch = createVerifiedFetch({ files: { [url]: root } });
  const file = await asyncBufferFromUrl({ url, fetch: verifiedFetch });
  const rows = await parquetReadObjects({
    file,
    columns: ['id', 'city', 'population'],
    rowStart: 41_000,
    rowEnd: 41_003,
  });
  return JSON.stringify(rows);
});
