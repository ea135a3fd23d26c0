// Pass/fail/skip counts from a JUnit XML report, counting only leaf tests: Deno reports a
// describe block and each of its `it`s as test cases ("suite > test"), Bun only the `it`s.

/** @returns {{ passed: number, failed: number, skipped: number, failures: string[] }} */
export function junitCounts(xml) {
  const cases = [];
  const caseRe = /<testcase\b([^>]*?)(\/>|>([\s\S]*?)<\/testcase>)/g;
  for (let m; (m = caseRe.exec(xml)); ) {
    const name = decode(/\bname="([^"]*)"/.exec(m[1])?.[1] ?? '');
    const body = m[3] ?? '';
    const state = /<(failure|error)\b/.test(body) ? 'failed' : /<skipped\b/.test(body) ? 'skipped' : 'passed';
    cases.push({ name, state });
  }
  const names = cases.map((c) => c.name);
  const leaves = cases.filter((c) => !names.some((n) => n.startsWith(`${c.name} > `)));
  const count = (state) => leaves.filter((c) => c.state === state).length;
  return {
    passed: count('passed'),
    failed: count('failed'),
    skipped: count('skipped'),
    failures: leaves.filter((c) => c.state === 'failed').map((c) => c.name),
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
