// MB/s against input size on log-log axes, as a standalone SVG string. Pure, so the benchmark
// page draws it live and `pnpm bench:browsers` writes the same drawing to docs/bench-<engine>.svg.
import { formatSize } from './sizes.ts';

export interface ChartSeries {
  readonly label: string;
  /** [input size in bytes, MB/s] pairs; sizes need not be shared between series. */
  readonly points: readonly (readonly [number, number])[];
}

export interface ChartOptions {
  readonly title: string;
  readonly width?: number;
  readonly height?: number;
}

// Distinct under the common colour-vision deficiencies (Okabe-Ito), then a few extra.
const COLOURS = ['#0072b2', '#e69f00', '#009e73', '#d55e00', '#cc79a7', '#56b4e9', '#000000', '#999933'];
const DASHES = ['', '6 3', '2 2', '8 3 2 3', '', '6 3', '2 2', '8 3 2 3'];

function escapeXml(s: string): string {
  return s.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]!);
}

/** Powers of ten (and 2x, 5x between them when the range is narrow) inside [lo, hi]. */
function logTicks(lo: number, hi: number): number[] {
  const ticks: number[] = [];
  const narrow = hi / lo < 1000;
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) {
    for (const m of narrow ? [1, 2, 5] : [1]) {
      const v = m * 10 ** e;
      if (v >= lo && v <= hi) ticks.push(v);
    }
  }
  return ticks;
}

function formatMbps(v: number): string {
  return v >= 1000 ? `${v / 1000}k` : String(v);
}

export function renderChart(series: readonly ChartSeries[], opts: ChartOptions): string {
  const width = opts.width ?? 720;
  const height = opts.height ?? 420;
  const legendRows = Math.ceil(series.length / 2);
  // The right margin holds half of the last size label ("16 MiB"), which is centred on the plot edge.
  const m = { left: 64, right: 32, top: 36, bottom: 52 + legendRows * 18 };
  const plotW = width - m.left - m.right;
  const plotH = height - m.top - m.bottom;
  const all = series.flatMap((s) => s.points).filter(([x, y]) => x > 0 && y > 0);
  const xs = all.map(([x]) => x);
  const ys = all.map(([, y]) => y);
  const xLo = xs.length ? Math.min(...xs) : 64;
  const xHi = xs.length ? Math.max(...xs) : 16 << 20;
  // Whole decades on the MB/s axis, so the gridlines are round numbers.
  const yLo = ys.length ? 10 ** Math.floor(Math.log10(Math.min(...ys))) : 1;
  const yHi = ys.length ? 10 ** Math.ceil(Math.log10(Math.max(...ys))) : 10000;
  const lx = (x: number) =>
    m.left + ((Math.log(x) - Math.log(xLo)) / Math.max(Math.log(xHi) - Math.log(xLo), 1e-9)) * plotW;
  const ly = (y: number) =>
    m.top + plotH - ((Math.log(y) - Math.log(yLo)) / Math.max(Math.log(yHi) - Math.log(yLo), 1e-9)) * plotH;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-labelledby="chart-title" font-family="system-ui, sans-serif" font-size="12">`,
  );
  out.push(`<title id="chart-title">${escapeXml(opts.title)}</title>`);
  out.push(`<rect width="${width}" height="${height}" fill="#fff"/>`);
  out.push(
    `<text x="${width / 2}" y="20" text-anchor="middle" font-size="14" font-weight="600">${escapeXml(opts.title)}</text>`,
  );
  // Grid and axes.
  const sizeTicks = [...new Set(xs)].sort((a, b) => a - b);
  for (const x of sizeTicks) {
    out.push(
      `<line x1="${lx(x).toFixed(1)}" x2="${lx(x).toFixed(1)}" y1="${m.top}" y2="${m.top + plotH}" stroke="#e5e5e5"/>`,
    );
    out.push(`<text x="${lx(x).toFixed(1)}" y="${m.top + plotH + 16}" text-anchor="middle">${formatSize(x)}</text>`);
  }
  for (const y of logTicks(yLo, yHi)) {
    out.push(
      `<line x1="${m.left}" x2="${m.left + plotW}" y1="${ly(y).toFixed(1)}" y2="${ly(y).toFixed(1)}" stroke="#e5e5e5"/>`,
    );
    out.push(`<text x="${m.left - 6}" y="${(ly(y) + 4).toFixed(1)}" text-anchor="end">${formatMbps(y)}</text>`);
  }
  out.push(`<rect x="${m.left}" y="${m.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#888"/>`);
  out.push(`<text x="${m.left + plotW / 2}" y="${m.top + plotH + 34}" text-anchor="middle">input size (log)</text>`);
  out.push(`<text transform="translate(16 ${m.top + plotH / 2}) rotate(-90)" text-anchor="middle">MB/s (log)</text>`);
  // One line with markers per series.
  series.forEach((s, i) => {
    const colour = COLOURS[i % COLOURS.length];
    const pts = s.points.filter(([x, y]) => x > 0 && y > 0).sort((a, b) => a[0] - b[0]);
    const label = escapeXml(s.label);
    if (pts.length > 1) {
      const d = pts.map(([x, y], k) => `${k ? 'L' : 'M'}${lx(x).toFixed(1)} ${ly(y).toFixed(1)}`).join(' ');
      out.push(
        `<path d="${d}" fill="none" stroke="${colour}" stroke-width="2"${DASHES[i % DASHES.length] ? ` stroke-dasharray="${DASHES[i % DASHES.length]}"` : ''}/>`,
      );
    }
    for (const [x, y] of pts) {
      out.push(
        `<circle class="point" cx="${lx(x).toFixed(1)}" cy="${ly(y).toFixed(1)}" r="3.5" fill="${colour}"><title>${label}: ${formatSize(x)}, ${y.toFixed(0)} MB/s</title></circle>`,
      );
    }
    const col = i % 2;
    const row = Math.floor(i / 2);
    const lxPos = m.left + col * (plotW / 2);
    const lyPos = height - legendRows * 18 + row * 18 - 4;
    out.push(
      `<line x1="${lxPos}" x2="${lxPos + 24}" y1="${lyPos - 4}" y2="${lyPos - 4}" stroke="${colour}" stroke-width="2"${DASHES[i % DASHES.length] ? ` stroke-dasharray="${DASHES[i % DASHES.length]}"` : ''}/>`,
    );
    out.push(`<circle cx="${lxPos + 12}" cy="${lyPos - 4}" r="3.5" fill="${colour}"/>`);
    out.push(`<text x="${lxPos + 30}" y="${lyPos}">${label}</text>`);
  });
  out.push('</svg>');
  return out.join('\n');
}
