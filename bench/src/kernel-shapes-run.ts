// Runs measureShapes in this runtime (Node, Deno or Bun) and prints JSON: the entry that
// kernel-shapes-main.ts starts in each runtime. Arguments: rounds, then the shape names.
import { measureShapes } from './kernel-shapes.ts';

const [rounds, ...names] = process.argv.slice(2);
console.log(JSON.stringify(measureShapes(names, Number(rounds), 150, () => performance.now())));
