// Per-project pass/fail/skip counts, time and skip reasons from Playwright's JSON report.

/**
 * @returns {Map<string, { passed: number, failed: number, skipped: number, seconds: number,
 *   skipReasons: Map<string, number>, failures: string[], backends: Set<string> }>}
 */
export function playwrightCounts(report) {
  const projects = new Map();
  const visit = (suite, titles) => {
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        let p = projects.get(test.projectName);
        if (!p) {
          p = {
            passed: 0,
            failed: 0,
            skipped: 0,
            seconds: 0,
            skipReasons: new Map(),
            failures: [],
            backends: new Set(),
          };
          projects.set(test.projectName, p);
        }
        for (const r of test.results ?? []) p.seconds += (r.duration ?? 0) / 1000;
        const title = [...titles, spec.title].filter(Boolean).join(' › ');
        const annotations = [...(test.annotations ?? []), ...(test.results ?? []).flatMap((r) => r.annotations ?? [])];
        if (test.status === 'skipped') {
          p.skipped++;
          const reason = annotations.find((a) => a.type === 'skip')?.description ?? 'no reason given';
          p.skipReasons.set(reason, (p.skipReasons.get(reason) ?? 0) + 1);
          continue;
        }
        // The core's backends a test actually ran with (see e2e/fixtures/backends.ts).
        for (const a of annotations) if (a.type === 'backend') p.backends.add(a.description);
        if (test.status === 'expected' || test.status === 'flaky') {
          p.passed++;
        } else {
          p.failed++;
          p.failures.push(title);
        }
      }
    }
    for (const child of suite.suites ?? []) visit(child, [...titles, child.title]);
  };
  for (const suite of report.suites ?? []) visit(suite, [suite.title]);
  return projects;
}
