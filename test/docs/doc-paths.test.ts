import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EngineCommand } from '@switchboard/protocol';
import { describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
/** The documents a newcomer reads first, and each package's guide: what they name must be there. */
const DOCUMENTS = [
  'README.md',
  'docs/architecture.md',
  'docs/dashboard.md',
  ...['protocol', 'kube', 'engine-pod', 'gateway', 'operator', 'bench', 'charts', 'crds', 'docker', 'dashboard', 'cli'].map(
    (dir) => `${dir}/README.md`,
  ),
  'gateway/src/local/webhooks/README.md',
];
/** Made by builds, installs and runs, never part of the repository. */
const NOT_IN_REPOSITORY = new Set(['node_modules', 'dist', '.git', '.tools', '.cache', 'data', 'test-results']);
/** Folders that builds and runs write into (all ignored by git): a document may name what lands there. */
const RUN_OUTPUTS = ['.cache/', 'test-results/', 'engines/gows/bin/', 'bench/results/'];
const FILE_EXTENSIONS = /\.(ts|mjs|js|md|ya?ml|json|sh)$/;

/** Every file and folder of the repository, as paths from its root ('/'-separated, folders ending in '/'). */
function repositoryPaths(dir = repoRoot, into: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (NOT_IN_REPOSITORY.has(entry.name)) continue;
    const path = join(dir, entry.name);
    const name = relative(repoRoot, path).split(sep).join('/');
    if (entry.isDirectory()) {
      into.push(`${name}/`);
      repositoryPaths(path, into);
    } else {
      into.push(name);
    }
  }
  return into;
}

/**
 * The repository paths a document names: code spans, and the words of its Mermaid diagrams,
 * that look like a path (a '/' or a source file's extension). Placeholders (`<session>/<id>`),
 * URLs and API routes (`/api/...`), label and API-group names (`switchboard.dev/restarted-at`),
 * npm packages (`@scope/name`) and data-dir paths are not repository paths.
 */
function namedPaths(markdown: string): string[] {
  const spans = [...markdown.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);
  const diagrams = [...markdown.matchAll(/```mermaid\n([\s\S]*?)```/g)].flatMap(
    (m) => m[1]!.match(/(?<![\w./-])(?:[\w.-]+(?:\/[\w.-]+)+\/?|[\w.-]+\.(?:ts|md)\b)/g) ?? [],
  );
  return [...new Set([...spans, ...diagrams])].filter(
    (token) =>
      /^\w[\w.@/-]*$/.test(token) && // not an npm package (@scope/name)
      (token.includes('/') || FILE_EXTENSIONS.test(token)) &&
      !/^[^/]*\.[^/]*\//.test(token) && // a domain first (switchboard.dev/..., app.kubernetes.io/...)
      !token.includes('='),
  );
}

/**
 * A path from the root, or the tail of one (`local/store/database.ts`, `history-file.ts`) for a
 * document that has just named the folder. A built file (`dist/main.js`) stands for its source.
 */
function exists(token: string, paths: readonly string[]): boolean {
  // What a build or a run writes (`test-results/dashboard/`, the Go engine's binary) is there only after it.
  if (RUN_OUTPUTS.some((folder) => token.startsWith(folder))) return true;
  const path = token.replace(/(^|\/)dist\//, '$1src/').replace(/\.js$/, '.ts');
  if (existsSync(join(repoRoot, path))) return true;
  return paths.some((p) => p.endsWith(`/${path}`) || p.endsWith(`/${path}/`));
}

describe('the documents name only paths the repository has', () => {
  const paths = repositoryPaths();

  for (const document of DOCUMENTS) {
    it(`${document}: every file and folder it names exists`, () => {
      const named = namedPaths(readFileSync(join(repoRoot, document), 'utf8'));
      expect(named.length).toBeGreaterThan(0);
      expect(named.filter((token) => !exists(token, paths))).toEqual([]);
    });
  }

  it('finds a path that is gone (the check itself works)', () => {
    const named = namedPaths(
      'See `gateway/src/gone.ts`, `local/no-such-file.ts` and `/api/sessions`, `switchboard.dev/session`, `<data>/media`.\n' +
        '```mermaid\nflowchart TB\n  a["kube/src/gone.ts<br/>POST /api/sendText"] --> b["gone-too.ts"] --> c(["/ws client"])\n```\n',
    );
    expect(named).toEqual(['gateway/src/gone.ts', 'local/no-such-file.ts', 'kube/src/gone.ts', 'gone-too.ts']);
    expect(named.filter((token) => !exists(token, paths))).toEqual(named);
  });
});

describe('docs/architecture.md lists the engine command contract as protocol/src/commands/ declares it', () => {
  it('names every engine operation, and says how many there are', () => {
    const architecture = readFileSync(join(repoRoot, 'docs/architecture.md'), 'utf8');
    const ops = EngineCommand.options.map((option) => option.shape.op.value);
    expect(ops.filter((op) => !architecture.includes(`\`${op}\``))).toEqual([]);
    expect(architecture).toContain(`There are ${ops.length} engine operations`);
  });
});
