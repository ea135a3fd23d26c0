// The reference the Bao tests run side by side with this package: the `bao` CLI, pinned.
import { cargoReference } from '../../testkit/setup/cargo-reference.mjs';

export const BAO_VERSION = '0.13.1';
const bao = cargoReference('bao_bin', BAO_VERSION, 'bao');
/** Where the tests find bao. */
export const baoPath = bao.path;
export const baoIsPinned = bao.isPinned;
export const ensureBao = bao.ensure;
export const baoInstall = bao.install;
