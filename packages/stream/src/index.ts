export { Blake3Stream } from './blake3-stream.js';
export { VerifyStream } from './verify-stream.js';
export { IntegrityError } from './integrity-error.js';
export { hashStream, verifyResponse } from './hash-stream.js';
