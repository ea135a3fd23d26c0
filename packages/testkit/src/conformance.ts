import {
  conformanceSuite,
  type ConformanceOptions,
  type ConformanceReport,
  type ConformanceTarget,
} from './conformance-suite.ts';
import { officialVectors } from './vectors.ts';

/** Runs the conformance suite over the official vectors; throws with every failure unless all checks pass. */
export async function assertConformance(
  target: ConformanceTarget,
  options?: ConformanceOptions,
): Promise<ConformanceReport> {
  const report = await conformanceSuite(officialVectors, target, options);
  if (report.planned === 0 || report.passed !== report.planned) {
    const shown = report.failures.slice(0, 20).join('\n  ');
    const more = report.failures.length > 20 ? `\n  ... and ${report.failures.length - 20} more` : '';
    throw new Error(`${report.passed} of ${report.planned} conformance checks passed:\n  ${shown}${more}`);
  }
  return report;
}
