// The import graph's rules, checked by `npm test` (`pnpm check:imports`): no cycles, type-only
// imports included, and packages import only the layers below them:
// core <- worker, stream <- workbox (core + stream), cli (core + worker + upload), upload (core + worker + stream),
// download (core + worker + stream); testkit stands alone.
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
    layer('upload', ['core', 'worker', 'stream']),
    layer('download', ['core', 'worker', 'stream']),
    layer('testkit', []),
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
