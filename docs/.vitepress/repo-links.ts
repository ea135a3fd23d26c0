import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

import type MarkdownIt from 'markdown-it';

type Options = { docsDir: string; repository: string };

/**
 * The docs link to files of the repository outside docs/ (recorded benchmark results, sources)
 * with relative paths that work on GitHub; on the site those become links to the file on GitHub.
 * Links inside docs/ are left to VitePress, which checks them.
 */
export function repoLinks(md: MarkdownIt, { docsDir, repository }: Options): void {
  const repoRoot = resolve(docsDir, '..');
  const original = md.renderer.rules.link_open;
  md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
    const token = tokens[idx];
    const href = token.attrGet('href');
    const page: string | undefined = env?.relativePath;
    if (href && page && !/^([a-z]+:|#|\/)/i.test(href)) {
      const [path, hash] = href.split('#');
      const target = resolve(join(docsDir, dirname(page)), path);
      if (!target.startsWith(docsDir) && existsSync(target)) {
        const kind = hash === undefined && !path.endsWith('/') ? 'blob' : 'tree';
        token.attrSet('href', `${repository}/${kind}/main/${relative(repoRoot, target)}${hash ? `#${hash}` : ''}`);
        token.attrSet('target', '_blank');
        token.attrSet('rel', 'noreferrer');
      }
    }
    return original ? original(tokens, idx, options, env, self) : self.renderToken(tokens, idx, options);
  };
}
