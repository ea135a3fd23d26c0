// Uploads a file to the server with tus-js-client 4 and the client options of
// packages/upload/README.md (`blake3Tus()`, a power-of-two chunkSize), as a Node program runs
// them: the file as a Blob (fs.openAsBlob), the hashing worker's protocol served on a
// MessagePort of this thread (Node has no Web Worker), and each slice read once by the adapter
// (`readInWorker: false`: tus's Node request stack sends bytes, and a file-backed Blob cannot be
// posted to a thread).
//   node client.mjs <file> [endpoint]
import { openAsBlob } from 'node:fs';
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Upload } from 'tus-js-client';
import { blake3Tus, serveHasher } from '@blake3-web/upload';

/**
 * Uploads the file at `path`; resolves to its URL and the root the server verified, or rejects
 * with tus-js-client's error (a refused upload: status 460). `opts` other than `endpoint` and
 * `chunkSize` go to `blake3Tus`.
 */
export async function uploadFile(
  path,
  { endpoint = 'http://127.0.0.1:1080/files', chunkSize = 8 * 1024 * 1024, ...opts } = {},
) {
  const file = await openAsBlob(path);
  const ports = [];
  const b3 = blake3Tus({
    ...opts,
    readInWorker: false,
    createWorker() {
      const { port1, port2 } = new MessageChannel();
      serveHasher(port2);
      ports.push(port1);
      return port1;
    },
  });
  try {
    return await new Promise((resolve, reject) => {
      const upload = new Upload(file, {
        endpoint,
        chunkSize, // a power of two, at least 1024
        metadata: { filename: basename(path) },
        ...b3.options,
        onSuccess: ({ lastResponse }) =>
          resolve({ url: upload.url, verified: lastResponse.getHeader('Upload-Blake3-Verified') }),
        onError: reject,
      });
      upload.start();
    });
  } finally {
    // The open ports would keep the process running.
    for (const port of ports) port.close();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [path, endpoint] = process.argv.slice(2);
  if (path === undefined) {
    console.error('usage: node client.mjs <file> [endpoint]');
    process.exit(2);
  }
  const { url, verified } = await uploadFile(path, endpoint === undefined ? {} : { endpoint });
  console.log(`${url} verified ${verified}`);
}
