// The core's build renames internal properties in its JavaScript and its declarations alike: every
// method and accessor a declared class names must be on that class in the built JavaScript.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dist = fileURLToPath(new URL('../../core/dist/', import.meta.url));
const declarations = readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.d.ts'));

/** Each `export declare class` of a declaration file, with the methods and accessors it declares. */
function declaredClasses(text: string): { name: string; members: string[] }[] {
  const classes: { name: string; members: string[] }[] = [];
  for (const match of text.matchAll(/^export declare class (\w+)[^{]*\{\n([\s\S]*?)^\}/gm)) {
    const members = [...match[2].matchAll(/^ {4}(?:(?:static|get|set) )?([\w$]+)(?:<[^>]*>)?\(/gm)].map((m) => m[1]);
    classes.push({ name: match[1], members: members.filter((m) => m !== 'constructor') });
  }
  return classes;
}

describe('core declarations match the built JavaScript', () => {
  it('finds the classes the hashing code is made of', () => {
    const names = declarations.flatMap((f) => declaredClasses(readFileSync(dist + f, 'utf8')).map((c) => c.name));
    for (const name of ['HasherState', 'Node', 'Output', 'FunctionBody', 'Hasher', 'OutputReader'])
      assert.ok(names.includes(name), `no declared class ${name} in dist`);
  });

  for (const file of declarations) {
    const classes = declaredClasses(readFileSync(dist + file, 'utf8'));
    if (classes.length === 0) continue;
    it(`${file}: every declared method is on its class`, async () => {
      const mod = (await import(pathToFileURL(dist + file.replace(/\.d\.ts$/, '.js')).href)) as Record<string, unknown>;
      for (const { name, members } of classes) {
        const cls = mod[name] as (new (...args: never[]) => unknown) | undefined;
        assert.equal(typeof cls, 'function', `${file} declares ${name}, the JavaScript does not export it`);
        for (const member of members) {
          const has = member in cls!.prototype || member in cls!;
          assert.ok(has, `${name}.${member} is declared but not in the JavaScript`);
        }
      }
    });
  }
});
