// Backend selection, each case in a fresh Node process so that the lazy, once-only detection
// starts from nothing: default, no WebAssembly, synchronous compilation refused (the Chromium
// main-thread size limit), and all compilation refused (a CSP without 'wasm-unsafe-eval').
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';

const core = new URL('../dist/index.js', import.meta.url).href;
const ABC = '6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85';

/** Runs `body` as an ES module after `prelude` (which may break WebAssembly); returns what it printed. */
function run(prelude: string, body: string): string {
  const code = `${prelude}\nconst core = await import(${JSON.stringify(core)});\n${body}`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim();
}

const report = `
const big = new Uint8Array(100000).map((_, i) => i % 251);
const out = [core.backend(), core.isBackendAvailable('wasm-simd'), core.bytesToHex(core.blake3('abc')), core.bytesToHex(core.blake3(big)).slice(0, 16)];
await core.ready();
out.push(core.backend(), core.isBackendAvailable('wasm-simd'), core.bytesToHex(core.blake3(big)).slice(0, 16));
try { core.setBackend('wasm-simd'); out.push('set'); } catch (e) { out.push(e.constructor.name + ': ' + e.message); }
console.log(JSON.stringify(out));`;

/** Counts attempts to compile the kernel (the probe that tests whether compilation is allowed is tiny). */
const countKernelCompiles =
  'let kernelCompiles = 0; const countKernel = (b) => { if (b.byteLength > 1024) kernelCompiles++; };';
/** Every way to compile bytes refused, as Cloudflare Workers and Next.js edge do; each attempt on the kernel counted. */
const refuseCompilation =
  countKernelCompiles +
  'const refused = () => new WebAssembly.CompileError("Wasm code generation disallowed by embedder");' +
  'WebAssembly.Module = new Proxy(M, { construct(_, [b]) { countKernel(b); throw refused(); } });' +
  'WebAssembly.compile = async (b) => { countKernel(b); throw refused(); };' +
  'WebAssembly.instantiate = async (b) => { if (!(b instanceof M)) { countKernel(b); throw refused(); } return I(b); };';
/** The kernel, compiled before anything was refused (a runtime's precompiled `.wasm` import). */
const precompiled = `const M = WebAssembly.Module, I = (m) => new WebAssembly.Instance(m);
const fs = await import('node:fs');
const kernel = new M(fs.readFileSync(new URL(${JSON.stringify(new URL('../dist/kernel.wasm', import.meta.url).href)})));`;

const expectedBig = run(
  '',
  'core.setBackend("js"); console.log(core.bytesToHex(core.blake3(new Uint8Array(100000).map((_, i) => i % 251))).slice(0, 16));',
);

describe('backend selection', () => {
  it('nothing is compiled at import time; the default is wasm-simd where SIMD works', () => {
    const out = run(
      `${countKernelCompiles}const M = WebAssembly.Module; WebAssembly.Module = function (b) { countKernel(b); return new M(b); };`,
      'const before = kernelCompiles; console.log(JSON.stringify([before, core.backend(), kernelCompiles]));',
    );
    assert.deepEqual(JSON.parse(out), [0, 'wasm-simd', 1]);
  });

  it('the batch piece is generated and compiled on the first batch only, and hashes as the JS jobs do', () => {
    const batch =
      'const msgs = Array.from({ length: 9 }, (_, i) => new Uint8Array(100 * i).map((_, j) => (j * 7 + i) % 251));' +
      'const hex = (ds) => ds.map(core.bytesToHex).join();';
    const out = JSON.parse(
      run(
        `${countKernelCompiles}const M = WebAssembly.Module; WebAssembly.Module = function (b) { countKernel(b); return new M(b); };`,
        batch +
          'core.blake3(new Uint8Array(4096)); const one = kernelCompiles; const got = hex(core.hashMany(msgs)); const two = kernelCompiles;' +
          'core.hashMany(msgs); core.setBackend("js"); const js = hex(core.hashMany(msgs));' +
          'console.log(JSON.stringify([one, two, kernelCompiles, got === js, got === hex(msgs.map((m) => core.blake3(m)))]));',
      ),
    );
    assert.deepEqual(out, [1, 2, 2, true, true]);
  });

  it('the batch piece refused synchronously: batches on JS until it compiles, then on it', () => {
    const out = JSON.parse(
      run(
        'const M = WebAssembly.Module; let pieces = 0; WebAssembly.Module = function (b) { if (b.byteLength > 1024 && pieces++ > 0) throw new RangeError("too large"); return new M(b); };' +
          'const C = WebAssembly.compile; let later = 0; WebAssembly.compile = (b) => (later++, C(b));',
        'const msgs = Array.from({ length: 8 }, (_, i) => new Uint8Array(64 * i + 1).fill(i));' +
          'const first = core.hashMany(msgs).map(core.bytesToHex).join(); await new Promise((r) => setTimeout(r, 200));' +
          'const after = core.hashMany(msgs).map(core.bytesToHex).join();' +
          'console.log(JSON.stringify([core.backend(), pieces, later, first === after, first === msgs.map((m) => core.bytesToHex(core.blake3(m))).join()]));',
      ),
    );
    assert.deepEqual(out, ['wasm-simd', 2, 1, true, true]);
  });

  it('without WebAssembly: js, quietly; forcing wasm-simd throws', () => {
    const out = JSON.parse(run('delete globalThis.WebAssembly;', report));
    assert.deepEqual(out.slice(0, 7), ['js', false, ABC, expectedBig, 'js', false, expectedBig]);
    assert.match(out[7], /^Error: the wasm-simd backend is not available/);
  });

  it('synchronous compilation refused: js until ready(), then wasm-simd', () => {
    const out = JSON.parse(
      run(
        'WebAssembly.Module = function () { throw new RangeError("WebAssembly.Module(): buffer size is larger than the limit"); };',
        report,
      ),
    );
    assert.deepEqual(out, ['js', false, ABC, expectedBig, 'wasm-simd', true, expectedBig, 'set']);
  });

  it('forcing wasm-simd while it still compiles says to await ready()', () => {
    const out = run(
      'WebAssembly.Module = function () { throw new RangeError("too large"); };',
      'core.backend(); try { core.setBackend("wasm-simd"); } catch (e) { console.log(e.message); }',
    );
    assert.match(out, /still compiling: await ready\(\) first/);
  });

  it('all compilation refused (CSP): js, quietly, even after ready()', () => {
    const out = JSON.parse(
      run(
        'WebAssembly.Module = function () { throw new WebAssembly.CompileError("Wasm code generation disallowed by embedder"); };' +
          'WebAssembly.compile = async () => { throw new WebAssembly.CompileError("Wasm code generation disallowed by embedder"); };',
        report,
      ),
    );
    assert.deepEqual(out.slice(0, 7), ['js', false, ABC, expectedBig, 'js', false, expectedBig]);
    assert.match(out[7], /^Error: the wasm-simd backend is not available/);
  });

  it('all compilation refused: the kernel is never generated nor compiled, not even by ready() or setBackend()', () => {
    const out = JSON.parse(
      run(
        precompiled + refuseCompilation,
        'const first = core.backend(); await core.ready(); try { core.setBackend("wasm-simd"); } catch {} await core.ready();' +
          'console.log(JSON.stringify([first, core.backend(), kernelCompiles]));',
      ),
    );
    assert.deepEqual(out, ['js', 'js', 0]);
  });

  it('ready({ module }) with the precompiled kernel where compilation is refused: wasm-simd, same bytes', () => {
    const out = JSON.parse(
      run(
        precompiled + refuseCompilation,
        'const first = core.backend(); await core.ready({ module: kernel });' + report,
      ),
    );
    assert.deepEqual(out, ['wasm-simd', true, ABC, expectedBig, 'wasm-simd', true, expectedBig, 'set']);
  });

  it('ready({ module }) before the first hash: wasm-simd without generating or compiling anything', () => {
    const out = JSON.parse(
      run(
        precompiled + refuseCompilation,
        'await core.ready({ module: kernel }); console.log(JSON.stringify([core.backend(), kernelCompiles, core.bytesToHex(core.blake3("abc"))]));',
      ),
    );
    assert.deepEqual(out, ['wasm-simd', 0, ABC]);
  });

  it('ready({ module }) respects setBackend("js")', () => {
    const out = run(
      precompiled + refuseCompilation,
      'core.setBackend("js"); await core.ready({ module: kernel }); console.log(core.backend(), core.isBackendAvailable("wasm-simd"));',
    );
    assert.equal(out, 'js true');
  });

  it('ready({ module }) rejects anything but the kernel with a TypeError naming options.module; JS stays', () => {
    const out = JSON.parse(
      run(
        precompiled + refuseCompilation,
        `const { encodeModule, func } = await import(${JSON.stringify(new URL('../dist/wasm/_module.js', import.meta.url).href)});
const { PAGES } = await import(${JSON.stringify(new URL('../dist/wasm/_many-layout.js', import.meta.url).href)});
// The kernel's exports, names and arities, with functions that do nothing; then with one page too few.
const fns = [['chunks', 5], ['xof', 5], ['many', 3], ['one', 2]].map(([name, n]) => func(name, n, () => {}));
const impostor = new M(encodeModule(fns, PAGES));
const small = new M(encodeModule(fns, PAGES - 1));
const empty = new M(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]));
const out = [];
for (const arg of ['x', null, 42, kernel, { module: undefined, other: 1 }, { module: 'kernel.wasm' }, { module: empty }, { module: small }, { module: impostor }]) {
  try { await core.ready(arg); out.push('resolved'); } catch (e) { out.push(e.constructor.name + ': ' + e.message); }
}
out.push(core.backend(), core.bytesToHex(core.blake3('abc')));
console.log(JSON.stringify(out));`,
      ),
    );
    assert.match(out[0], /^TypeError: options must be an object, got a string/);
    assert.match(out[1], /^TypeError: options must be an object, got null/);
    assert.match(out[2], /^TypeError: options must be an object, got 42/);
    assert.match(
      out[3],
      /^TypeError: options must be an object like \{ module \}, got an object \(WebAssembly.Module\)/,
    );
    assert.equal(out[4], 'resolved');
    assert.match(out[5], /^TypeError: options.module must be a WebAssembly.Module .*got a string/);
    const wrong = /^TypeError: options.module is not the @blake3-web\/core kernel.wasm of this version: /;
    for (const o of out.slice(6, 9)) assert.match(o, wrong);
    assert.match(out[6], /it exports nothing/);
    assert.match(out[7], /its memory has 9 pages/);
    assert.match(out[8], /its chunks\(\) hash differs/);
    assert.deepEqual(out.slice(9), ['js', ABC]);
  });

  it('SIMD missing (validate refuses v128): js', () => {
    const out = JSON.parse(run('WebAssembly.validate = () => false;', report));
    assert.deepEqual(out.slice(0, 7), ['js', false, ABC, expectedBig, 'js', false, expectedBig]);
  });

  it('setBackend("js") wins over a compilation that finishes later', () => {
    const out = run(
      'WebAssembly.Module = function () { throw new RangeError("too large"); };',
      'core.backend(); core.setBackend("js"); await core.ready(); console.log(core.backend(), core.isBackendAvailable("wasm-simd"));',
    );
    assert.equal(out, 'js true');
  });
});
