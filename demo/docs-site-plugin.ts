import type { Plugin } from 'vite';

import { DOCS_PREFIX, docsMiddleware } from '../servers/docs-site.ts';

/** The built docs site under /docs/ of the demo's server, with its address printed beside the demo's. */
export function docsSite(): Plugin {
  const serve = docsMiddleware();
  return {
    name: 'blake3-web-docs-site',
    configureServer: (server) => void server.middlewares.use(serve),
    configurePreviewServer: (server) => {
      server.middlewares.use(serve);
      const print = server.printUrls.bind(server);
      server.printUrls = () => {
        print();
        for (const url of server.resolvedUrls?.local ?? []) console.log(`  ➜  Docs:    ${new URL(DOCS_PREFIX, url)}`);
      };
    },
  };
}
