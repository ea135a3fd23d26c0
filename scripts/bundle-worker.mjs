// Builds a package's worker, dist/<name>.js with its imports inlined, in two forms:
// - dist/<name>.bundle.js, one self-contained module: module workers do not see a page's
//   import map, so without a bundler this is the form a browser can load, and bundlers that
//   follow new URL(..., import.meta.url) take it as is;
// - dist/<name>-source.js, the same worker minified as a string, which the package starts
//   from a blob: URL where a bundler left the first one out.
// Run after tsc (it bundles dist/).
import { writeFile } from 'node:fs/promises';

/**
 * `build`: esbuild's, from the calling package's own dependency; `dist`: its dist/ path (with the
 * slash); `what`: the worker, as the string's comment names it.
 */
export async function bundleWorker(build, dist, name, what) {
  const common = {
    entryPoints: [`${dist}${name}.js`],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    logLevel: 'warning',
  };
  const [, inline] = await Promise.all([
    build({ ...common, outfile: `${dist}${name}.bundle.js`, sourcemap: true, legalComments: 'inline' }),
    build({ ...common, write: false, minify: true, legalComments: 'inline' }),
  ]);
  const source = inline.outputFiles[0].text;
  await Promise.all([
    writeFile(
      `${dist}${name}-source.js`,
      `// ${what} (./${name}.bundle.js), minified, as a string.\nexport default ${JSON.stringify(source)};\n`,
    ),
    writeFile(`${dist}${name}-source.d.ts`, 'declare const source: string;\nexport default source;\n'),
  ]);
}
