// The first block of packages/core/README.md, as it stands there (the tests compare), then the
// value of its expression for the page.
import { blake3, bytesToHex } from '@blake3-web/core';

bytesToHex(blake3('abc'));
// '6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85'

export const result = bytesToHex(blake3('abc'));
