// Runs the fixture server by hand, to open the test pages in any browser:
//   node --import tsx servers/serve.ts [port]
import { startFixtureServer, ISOLATED_PREFIX } from './fixture-server.ts';

const server = await startFixtureServer(Number(process.argv[2] ?? 4173));
console.log(`serving built packages and test pages at ${server.url}/servers/pages/`);
console.log(`cross-origin isolated: ${server.url}${ISOLATED_PREFIX}servers/pages/`);
