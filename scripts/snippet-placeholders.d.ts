// What the docs' code blocks take as given: the page's file, a key, a URL, the bytes at hand.
// Each is what the surrounding text says it is; a block that needs anything else defines it.
declare const file: File;
declare const blob: Blob;
declare const key: Uint8Array;
declare const url: string;
declare const data: Uint8Array;
declare const message: Uint8Array;
declare const response: Response;
declare const expectedHex: string;
declare const expectedTag: string;
declare const input: Uint8Array;
declare const inputKeyMaterial: Uint8Array;
declare const part1: Uint8Array;
declare const part2: Uint8Array;
declare const records: Uint8Array[];
declare const out: Uint8Array;
/** A file's BLAKE3 root, hex, from a source the page trusts. */
declare const root: string;
declare const rootHash: string;
declare const baoUrl: string;
declare const appHex: string;
declare const blobHex: string;
