// The server block of packages/upload/README.md ("Server (@tus/server 2, @tus/file-store)") as it
// stands there (a test compares), then what a running server adds: the address it listens on
// (HOST, default 127.0.0.1; PORT, default 1080, 0 for a free one) and which hasher the store uses.
import { Server } from '@tus/server';
import { Blake3FileStore, verifyBlake3, ROOT_HEADER, VERIFIED_HEADER } from '@blake3-web/upload/tus-server';

const datastore = new Blake3FileStore({ directory: './uploads', outboard: true }); // outboard: optional
const server = new Server({
  path: '/files',
  datastore,
  allowedHeaders: [ROOT_HEADER],      // for cross-origin clients
  exposedHeaders: [VERIFIED_HEADER],
  onUploadFinish: verifyBlake3(datastore),
});

// 'native' where @blake3-web/native loaded and agreed with the core's hash, else 'wasm'.
const hasher = await datastore.hasherBackend();
const host = process.env.HOST ?? '127.0.0.1';
const listening = server.listen({ host, port: Number(process.env.PORT ?? 1080) }, () => {
  console.log(`tus server at http://${host}:${listening.address().port}/files, hashing with ${hasher}`);
});
