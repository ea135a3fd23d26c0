// A CommonJS TypeScript user: require() of the ES modules, as Node 20.19+ and TypeScript's nodenext allow.
import core = require('@blake3-web/core');

export const hex: string = core.bytesToHex(core.blake3('abc'));
