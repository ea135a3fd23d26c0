// docs/BENCHMARKS.md holds one generated section per environment (Node, each browser, the pool),
// each between its own marker comments, so a run rewrites its section and keeps the rest.

export function startMarker(name: string): string {
  return `<!-- bench:${name}:start -->`;
}

export function endMarker(name: string): string {
  return `<!-- bench:${name}:end -->`;
}

/** `doc` with the section `name` replaced by `body`, or with it appended if absent. */
export function replaceSection(doc: string, name: string, body: string): string {
  const start = startMarker(name);
  const end = endMarker(name);
  const block = `${start}\n${body.trimEnd()}\n${end}`;
  const i = doc.indexOf(start);
  const j = doc.indexOf(end);
  if (i >= 0 && j > i) return doc.slice(0, i) + block + doc.slice(j + end.length);
  if (i >= 0 || j >= 0) throw new Error(`docs/BENCHMARKS.md has a broken ${name} section: fix its marker comments`);
  return `${doc.trimEnd()}\n\n${block}\n`;
}
