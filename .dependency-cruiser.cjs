// The import graph's rules, checked by `npm test` (`pnpm check:imports`): no cycles, type-only
// imports included, and packages import only the layers below them:
// core <- worker, stream, native <- workbox (core + stream), cli (core + worker + upload), upload (core + worker + stream + native),
// download (core + worker + stream); testkit stands alone.
// The benchmarks (bench/, packages/*/bench) take their servers and browser drivers from servers/, never from e2e/.
/** A package's sources may import, besides themselves, only the packages listed. */
const layer = (name, allowed) => ({
  name: `${name}-imports-only-${allowed.length ? allowed.join('-') : 'itself'}`,
  severity: 'error',
  comment: `${name} sits above ${allowed.length ? allowed.join(' and ') : 'no other package'} and imports nothing else of this repo`,
  from: { path: `^packages/${name}/src/` },
  // Resolved into packages/*/ once built; named @blake3-web/* when the dist it points at is absent.
  to: { path: '^(packages/|@blake3-web/)', pathNot: `^(packages/|@blake3-web/)(${[name, ...allowed].join('|')})(/|$)` },
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'a cycle means neither module can be read, tested or replaced without the other',
      from: {},
      to: { circular: true },
    },
    layer('core', []),
    layer('worker', ['core']),
    layer('stream', ['core']),
    layer('workbox', ['core', 'stream']),
    layer('cli', ['core', 'worker', 'upload']),
    layer('native', ['core']),
    layer('upload', ['core', 'worker', 'stream', 'native']),
    layer('download', ['core', 'worker', 'stream']),
    layer('testkit', []),
    {
      name: 'benchmarks-import-no-e2e',
      severity: 'error',
      comment:
        'benchmarks reach the servers and browser drivers they share with e2e through servers/, never e2e itself: e2e sits above them',
      from: { path: '^(bench|packages/[^/]+/bench)/' },
      to: { path: '^e2e/' },
    },
    {
      name: 'servers-import-no-consumer',
      severity: 'error',
      comment: "servers/ is shared by e2e, bench, the demo and the packages' benchmarks, so it imports none of them",
      from: { path: '^servers/' },
      to: { path: '^(e2e|bench|demo|examples)/|^packages/[^/]+/(bench|test)/' },
    },
  ],
  options: {
    // Type-only imports are edges too: a type cycle still ties the modules together.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|node_modules)/' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'types', 'default'],
      extensions: ['.ts', '.js', '.mjs', '.json'],
    },
  },
};
