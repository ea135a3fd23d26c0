// The reference the CLI's differential tests run side by side with b3web: b3sum, pinned.
import { cargoReference } from '../../testkit/setup/cargo-reference.mjs';

export const B3SUM_VERSION = '1.8.2';
const b3sum = cargoReference('b3sum', B3SUM_VERSION, 'b3sum');
/** Where the tests find b3sum. */
export const b3sumPath = b3sum.path;
export const installedB3sumVersion = b3sum.installed;
export const ensureB3sum = b3sum.ensure;
