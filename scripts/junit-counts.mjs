// Pass/fail/skip counts from a JUnit XML report, counting only leaf tests: Deno reports a
// describe block and each of its `it`s as test cases ("suite > test"), Bun only the `it`s.

/** @returns {{ passed: number, failed: number, skipped: number, failures: string[], backends: string[] }} */
export function junitCounts(xml) {
  const cases = [];
  const caseRe = /<testcase\b([^>]*?)(\/>|>([\s\S]*?)<\/testcase>)/g;
  for (let m; (m = caseRe.exec(xml));) {
    const name = decode(/\bname="([^"]*)"/.exec(m[1])?.[1] ?? '');
    const suite = decode(/\bclassname="([^"]*)"/.exec(m[1])?.[1] ?? '');
    const body = m[3] ?? '';
    const state = /<(failure|error)\b/.test(body) ? 'failed' : /<skipped\b/.test(body) ? 'skipped' : 'passed';
    cases.push({ name, suite, state });
  }
  const names = cases.map((c) => c.name);
  const leaves = cases.filter((c) => !names.some((n) => n.startsWith(`${c.name} > `)));
  const count = (state) => leaves.filter((c) => c.state === state).length;
  return {
    passed: count('passed'),
    failed: count('failed'),
    skipped: count('skipped'),
    failures: leaves.filter((c) => c.state === 'failed').map((c) => c.name),
    // The core's suites name the backend they force: "official vectors [wasm-simd]".
    backends: [
      ...new Set(
        leaves
          .filter((c) => c.state !== 'skipped')
          .flatMap((c) => [...`${c.suite} ${c.name}`.matchAll(/\[(wasm-simd|js)\]/g)].map((m) => m[1])),
      ),
    ],
  };
}

function decode(s) {
  return s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&#(\d+);/g, (_, n) => String.fromCodePoint(Number(n)))
    .replace(/&amp;/g, '&');
}
