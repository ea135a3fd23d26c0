// Writes a scenario's check files into `dir` and returns its standard input.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const fill = (text, hashOf) => text.replace(/\{hash:([^}]*)\}/g, (_, name) => hashOf(name));

export function prepare(scenario, dir, hashOf) {
  for (const [file, text] of Object.entries(scenario.checkfiles ?? {})) writeFileSync(join(dir, file), fill(text, hashOf));
  const stdin = scenario.stdinCheck !== undefined ? Buffer.from(fill(scenario.stdinCheck, hashOf)) : Buffer.from(scenario.stdin ?? []);
  return { stdin };
}

prepare.read = (dir, file) => readFileSync(join(dir, file), 'utf8');
