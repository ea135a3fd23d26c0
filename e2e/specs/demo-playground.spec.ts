// The demo's playground through its form, in all three engines: files dropped in give the
// official vectors' extended outputs in every mode, at any length and seek; typed text gives
// what the reference implementation gives for its UTF-8; a pasted digest reads match or mismatch.
import { officialVectors, oracle } from '@blake3-web/testkit';

import { expect, test, type DemoPage } from '../fixtures/demo-page.ts';

const PAGE = '/demo/dist/playground.html';

type Form = {
  mode?: string;
  key?: string;
  context?: string;
  length?: string;
  seek?: string;
  text?: string;
  expected?: string;
};
type Shown = { outputs: string[]; error: string; compare: string; verdict: string; tone: string };

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
const VECTOR_KEY = hex(new TextEncoder().encode(officialVectors.key));

/**
 * Fills the form as a person types (an `input` event per field), optionally picks files of the
 * vectors' input (bytes i % 251) of the given lengths, and returns what the page shows once every
 * output is drawn.
 */
function play(page: DemoPage, form: Form, fileLengths?: number[]): Promise<Shown> {
  return page.evaluate(
    async ({ form, fileLengths }) => {
      const set = (id: string, value: string | undefined) => {
        if (value === undefined) return;
        const el = document.getElementById(id) as HTMLInputElement;
        el.value = value;
        el.dispatchEvent(new Event('input', { bubbles: true }));
      };
      if (fileLengths) {
        const dt = new DataTransfer();
        for (const n of fileLengths) {
          const bytes = new Uint8Array(n);
          for (let i = 0; i < n; i++) bytes[i] = i % 251;
          dt.items.add(new File([bytes], `vector-${n}.bin`));
        }
        const input = document.getElementById('play-files') as HTMLInputElement;
        input.files = dt.files;
        input.dispatchEvent(new Event('change', { bubbles: true }));
      }
      set('mode', form.mode);
      set('key', form.key);
      set('context', form.context);
      set('out-len', form.length);
      set('seek', form.seek);
      set('text', form.text);
      set('expected', form.expected);
      const rows = () => Array.from(document.querySelectorAll<HTMLOutputElement>('#outputs output.hex'));
      const error = () => document.getElementById('options-error')!.textContent ?? '';
      while (error() === '' && (rows().length === 0 || rows().some((o) => o.value === '')))
        await new Promise((r) => setTimeout(r, 20));
      const compare = document.getElementById('compare')!;
      return {
        outputs: rows().map((o) => o.value),
        error: error(),
        compare: compare.textContent ?? '',
        verdict: compare.dataset.verdict ?? '',
        tone: compare.dataset.tone ?? '',
      };
    },
    { form, fileLengths },
  );
}

test.describe('demo: playground', () => {
  test.use({ demoViewport: { width: 390, height: 844 } });

  test.beforeEach(async ({ demoPage }) => {
    await demoPage.goto(PAGE);
    await demoPage.waitForFunction(
      () => (document.getElementById('out-hex') as HTMLOutputElement | null)?.value !== '',
    );
  });

  test('the empty text gives the official vectors of length 0 in every mode, and their extended output from a seek', async ({
    demoPage,
  }) => {
    const v = officialVectors.cases.find((c) => c.input_len === 0)!;
    const ext = v.hash.length / 2;
    expect(await play(demoPage, { mode: 'hash', length: String(ext) })).toMatchObject({ outputs: [v.hash], error: '' });
    expect(await play(demoPage, { mode: 'keyed', key: VECTOR_KEY })).toMatchObject({ outputs: [v.keyed_hash] });
    expect(await play(demoPage, { mode: 'derive', context: officialVectors.context_string })).toMatchObject({
      outputs: [v.derive_key],
    });
    // 40 bytes from byte 50 of the extended output: the vector's bytes 50..89.
    expect(await play(demoPage, { mode: 'hash', length: '40', seek: '50' })).toMatchObject({
      outputs: [v.hash.slice(100, 180)],
    });
  });

  test('dropped files give the official vectors, one output each, in every mode', async ({ demoPage }) => {
    const lengths = [1, 1023, 1024, 1025, 2048, 8193, 31744];
    const cases = lengths.map((n) => officialVectors.cases.find((c) => c.input_len === n)!);
    const ext = String(cases[0]!.hash.length / 2);
    const hashes = await play(demoPage, { mode: 'hash', length: ext }, lengths);
    expect(hashes.outputs).toEqual(cases.map((c) => c.hash));
    const keyed = await play(demoPage, { mode: 'keyed', key: VECTOR_KEY });
    expect(keyed.outputs).toEqual(cases.map((c) => c.keyed_hash));
    const derived = await play(demoPage, {
      mode: 'derive',
      context: officialVectors.context_string,
      seek: '7',
      length: '64',
    });
    expect(derived.outputs).toEqual(cases.map((c) => c.derive_key.slice(14, 14 + 128)));
    // The pasted digest names the file it matches.
    const pasted = await play(demoPage, { expected: cases[3]!.derive_key.slice(14, 14 + 128).toUpperCase() });
    expect(pasted).toMatchObject({
      verdict: 'match',
      tone: 'ok',
      compare: 'Match: the pasted digest is vector-1025.bin.',
    });
  });

  test('typed text gives the reference output for its UTF-8, live, at any length and a seek past 2^32', async ({
    demoPage,
  }) => {
    const text = 'Grüße, 世界 🌍: BLAKE3 in a browser';
    const data = new TextEncoder().encode(text);
    const key = new Uint8Array(32).map((_, i) => (i * 37 + 11) & 0xff);
    const context = 'blake3-web playground 2026-11-28 test';
    const seek = 2n ** 32n + 12_345n;
    const [plain, keyed, derived] = oracle([
      { data, length: 1024 },
      { data, key, length: 33, seek },
      { data, context, length: 7 },
    ]);
    // Every keystroke redraws: the text typed one character at a time ends at the full digest.
    let last: Shown | undefined;
    for (const n of [1, 5, text.length])
      last = await play(demoPage, { mode: 'hash', length: '1024', text: text.slice(0, n) });
    expect(last!.outputs).toEqual([plain]);
    expect((await play(demoPage, { mode: 'keyed', key: hex(key), length: '33', seek: String(seek) })).outputs).toEqual([
      keyed,
    ]);
    expect((await play(demoPage, { mode: 'derive', context, length: '7', seek: '0' })).outputs).toEqual([derived]);
  });

  test('a pasted digest: match, mismatch, another length, and not hex each read differently', async ({ demoPage }) => {
    const text = 'compare me';
    const [want] = oracle([{ data: new TextEncoder().encode(text), length: 32 }]);
    const flipped = want!.slice(0, -1) + (want!.endsWith('0') ? '1' : '0');
    const base = { mode: 'hash', length: '32', seek: '0', text };
    expect(await play(demoPage, { ...base, expected: `  0x${want!.toUpperCase()} ` })).toMatchObject({
      outputs: [want],
      verdict: 'match',
      tone: 'ok',
      compare: 'Match: the pasted digest is the output above.',
    });
    expect(await play(demoPage, { ...base, expected: flipped })).toMatchObject({
      verdict: 'mismatch',
      tone: 'bad',
      compare: 'Mismatch: the pasted digest differs from the output above.',
    });
    expect(await play(demoPage, { ...base, expected: want!.slice(0, 40) })).toMatchObject({
      verdict: 'mismatch',
      compare: 'Mismatch: the pasted digest differs from the output above. It is 20 bytes long, the output 32 bytes.',
    });
    expect(await play(demoPage, { ...base, expected: 'not a digest' })).toMatchObject({
      verdict: 'mismatch',
      compare: 'Mismatch: that is not hex (0-9, a-f).',
    });
    expect(await play(demoPage, { ...base, expected: '' })).toMatchObject({ verdict: '', compare: '' });
    await demoPage.screenshot('playground');
  });

  test('a bad key, context, length or seek is named, and no output is shown', async ({ demoPage }) => {
    const cases: [Form, RegExp][] = [
      [{ mode: 'keyed', key: 'abc' }, /^The key must be 64 hex digits \(32 bytes\); it has 3 characters\.$/],
      [{ mode: 'derive', context: '' }, /^derive_key needs a context string\.$/],
      [{ mode: 'hash', length: '0' }, /^Output length must be a whole number of bytes from 1 to 1024\.$/],
      [{ mode: 'hash', length: '32', seek: '-1' }, /^The seek position must be a whole number/],
      [{ mode: 'hash', length: '32', seek: String(2n ** 64n - 31n) }, /^The output ends past byte 2\^64/],
    ];
    for (const [form, message] of cases) {
      const shown = await play(demoPage, form);
      expect(shown.error).toMatch(message);
      expect(shown.outputs).toEqual([]);
    }
  });
});
