// The first block of packages/stream/README.md, as it stands there (the tests compare), with the
// names it takes as given defined first: the file to fetch, and its hash, keyed hash and key from
// the page's query string (the tests pass the official implementation's).
import { bytesToHex, hexToBytes } from '@blake3-web/core';

const query = new URLSearchParams(location.search);
const url = new URL('./data.txt', location.href);
const expectedHex = query.get('hash') ?? '';
const expectedTag = query.get('tag') ?? '';
const key = hexToBytes(query.get('key') ?? '');

import { Blake3Stream, VerifyStream, verifyResponse, hashStream } from '@blake3-web/stream';

// Hash bytes on their way to any WritableStream (here, chunks kept in memory).
const chunks: Uint8Array[] = [];
const sink = new WritableStream<Uint8Array>({ write: (chunk) => void chunks.push(chunk) });
const hashing = new Blake3Stream();
await (await fetch(url)).body!.pipeThrough(hashing).pipeTo(sink);
const digest = await hashing.digest;

// Check a response against a known hash: text(), json(), arrayBuffer(), blob(), a reader or
// pipeTo reject with an IntegrityError unless the bytes match.
const checked = verifyResponse(await fetch(url), expectedHex);
const text = await checked.text();

// A keyed check (a MAC) on a stream, and the hash of a whole stream.
const authenticated = (await fetch(url)).body!.pipeThrough(new VerifyStream(expectedTag, { key }));
const hash = await hashStream((await fetch(url)).body!);

export const result = {
  digest: bytesToHex(digest),
  text,
  authenticated: await new Response(authenticated).text(),
  hash: bytesToHex(hash),
  sunk: chunks.reduce((n, c) => n + c.length, 0),
};
