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

const expectedBig = run('', 'core.setBackend("js"); console.log(core.bytesToHex(core.blake3(new Uint8Array(100000).map((_, i) => i % 251))).slice(0, 16));');

describe('backend selection', () => {
  it('nothing is compiled at import time; the default is wasm-simd where SIMD works', () => {
    const out = run(
      'let compiled = 0; const M = WebAssembly.Module; WebAssembly.Module = function (b) { compiled++; return new M(b); };',
      'const before = compiled; console.log(JSON.stringify([before, core.backend(), compiled]));',
    );
    assert.deepEqual(JSON.parse(out), [0, 'wasm-simd', 1]);
  });

  it('without WebAssembly: js, quietly; forcing wasm-simd throws', () => {
    const out = JSON.parse(run('delete globalThis.WebAssembly;', report));
    assert.deepEqual(out.slice(0, 7), ['js', false, ABC, expectedBig, 'js', false, expectedBig]);
    assert.match(out[7], /^Error: the wasm-simd backend is not available/);
  });

  it('synchronous compilation refused: js until ready(), then wasm-simd', () => {
    const out = JSON.parse(run(
      'WebAssembly.Module = function () { throw new RangeError("WebAssembly.Module(): buffer size is larger than the limit"); };',
      report,
    ));
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
    const out = JSON.parse(run(
      'WebAssembly.Module = function () { throw new WebAssembly.CompileError("Wasm code generation disallowed by embedder"); };' +
        'WebAssembly.compile = async () => { throw new WebAssembly.CompileError("Wasm code generation disallowed by embedder"); };',
      report,
    ));
    assert.deepEqual(out.slice(0, 7), ['js', false, ABC, expectedBig, 'js', false, expectedBig]);
    assert.match(out[7], /^Error: the wasm-simd backend is not available/);
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
