export { Blake3Stream } from './blake3-stream.js';
export { VerifyStream } from './verify-stream.js';
export { IntegrityError } from './integrity-error.js';
export { hashStream } from './hash-stream.js';
export { verifyResponse } from './verify-response.js';
export {
  baoEncode,
  baoEncodeInto,
  baoEncodedSize,
  baoOutboardSize,
  type BaoEncodeOpts,
  type BaoEncoded,
} from './bao/encode.js';
export { BaoEncoder, type BaoOutboard } from './bao/encoder.js';
export { baoCombine } from './bao/combine.js';
export { baoDecode, type BaoDecodeOpts } from './bao/decode.js';
export { BaoVerifyStream, type BaoVerifyOpts } from './bao/bao-verify-stream.js';
export { baoSlice, baoDecodeSlice, type BaoSource } from './bao/slice.js';
export { fetchVerified, type FetchVerifiedOpts } from './bao/fetch-verified.js';
export type { BaoTreeOpts } from './bao/_options.js';
export { baoOutboardSlice, baoSliceBounds } from './bao/outboard-slice.js';
