// What a site does before it deploys a file for verified download: writes the file (here a small
// Parquet table, made with hyparquet-writer), publishes it with b3web-publish (the outboard and
// the manifest beside it, in public/ so the site serves all three), and pins the root in the
// app's code, where a mirror cannot change it.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { parquetWriteBuffer } from 'hyparquet-writer';

const ROWS = 50_000;
const names = ['Lyon', 'Oslo', 'Quito', 'Perth', 'Accra', 'Hanoi', 'Cusco', 'Turku'];
const buffer = parquetWriteBuffer({
  columnData: [
    { name: 'id', data: Int32Array.from({ length: ROWS }, (_, i) => i), type: 'INT32' },
    { name: 'city', data: Array.from({ length: ROWS }, (_, i) => `${names[i % names.length]} ${i}`), type: 'STRING' },
    { name: 'population', data: Float64Array.from({ length: ROWS }, (_, i) => (i * 7919) % 1_000_003), type: 'DOUBLE' },
  ],
});
mkdirSync('public', { recursive: true });
writeFileSync('public/cities.parquet', new Uint8Array(buffer));
execFileSync('b3web-publish', ['public/cities.parquet'], { stdio: ['ignore', 'ignore', 'inherit'] });
const { root, size } = JSON.parse(readFileSync('public/cities.parquet.manifest.json', 'utf8'));
writeFileSync(
  'pinned.js',
  `// Written by scripts/publish-data.mjs.\nexport const cities = { root: '${root}', size: ${size} };\n`,
);
