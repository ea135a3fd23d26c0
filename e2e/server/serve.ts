// Runs the fixture server by hand, to open the e2e pages in any browser:
//   node --import tsx e2e/server/serve.ts [port]
import { startFixtureServer, ISOLATED_PREFIX } from './fixture-server.ts';

const server = await startFixtureServer(Number(process.argv[2] ?? 4173));
console.log(`serving built packages and e2e pages at ${server.url}/e2e/pages/`);
console.log(`cross-origin isolated: ${server.url}${ISOLATED_PREFIX}e2e/pages/`);
