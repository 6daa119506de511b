import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';

/** One WhatsApp Web module the library reads: the members it reads on it, and the library files that do. */
export interface ModuleUse {
  readonly module: string;
  readonly members: readonly string[];
  readonly files: readonly string[];
}

const IDENT = String.raw`[A-Za-z_$][\w$]*`;
/** `require('WAWebX')`, also split over lines as the library's formatter leaves it. */
const REQUIRE = String.raw`require\(\s*'(WA[\w$]*)'\s*,?\s*\)`;

/** The pinned whatsapp-web.js's source folder. */
export function librarySource(): string {
  return join(dirname(createRequire(import.meta.url).resolve('whatsapp-web.js')), 'src');
}

function jsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return jsFiles(path);
    return name.endsWith('.js') ? [path] : [];
  });
}

/**
 * Every `WA*` module the library's code reads in the page, with the members read right on it
 * (`require('X').member`, `const {a, b} = require('X')`), from its source as installed: what the
 * fake WhatsApp Web must define for the library to run, found again on every library upgrade.
 */
export function scanLibrary(src = librarySource()): ModuleUse[] {
  const uses = new Map<string, { members: Set<string>; files: Set<string> }>();
  const use = (module: string, file: string) => {
    let entry = uses.get(module);
    if (!entry) uses.set(module, (entry = { members: new Set(), files: new Set() }));
    entry.files.add(file);
    return entry;
  };
  for (const path of jsFiles(src)) {
    const text = readFileSync(path, 'utf8');
    const file = relative(join(src, '..'), path);
    for (const match of text.matchAll(new RegExp(REQUIRE, 'g'))) use(match[1]!, file);
    for (const match of text.matchAll(new RegExp(`${REQUIRE}\\s*\\??\\.\\s*(${IDENT})`, 'g'))) use(match[1]!, file).members.add(match[2]!);
    for (const match of text.matchAll(new RegExp(`\\{([^{}]*)\\}\\s*=\\s*(?:window\\s*\\.\\s*)?${REQUIRE}`, 'g'))) {
      const entry = use(match[2]!, file);
      for (const part of match[1]!.split(',')) {
        const name = part.split(':')[0]!.trim();
        if (name) entry.members.add(name);
      }
    }
  }
  return [...uses]
    .map(([module, { members, files }]) => ({ module, members: [...members].sort(), files: [...files].sort() }))
    .sort((a, b) => a.module.localeCompare(b.module));
}

/** The modules the fake's page defines (`define('X', ...)` in page/*.js). */
export function fakeModules(pageDir = new URL('./page/', import.meta.url)): string[] {
  const dir = pageDir instanceof URL ? pageDir.pathname : pageDir;
  const names = readdirSync(dir)
    .filter((name) => name.endsWith('.js'))
    .flatMap((name) => [...readFileSync(join(dir, name), 'utf8').matchAll(/\bdefine\(\s*'([^']+)'/g)].map((m) => m[1]!));
  return [...new Set(names)].sort();
}

/** The README's table of the library's surface: how many modules the fake covers, then one row per module, whether the fake defines it. */
export function surfaceTable(uses: readonly ModuleUse[], provided: ReadonlySet<string>): string {
  const rows = uses.map(
    (use) =>
      `| \`${use.module}\` | ${provided.has(use.module) ? 'yes' : 'not yet'} | ${use.members.map((m) => `\`${m}\``).join(', ') || '(spread or checked)'} | ${use.files.map((f) => f.replace(/^src\//, '')).join(', ')} |`,
  );
  const covered = uses.filter((use) => provided.has(use.module)).length;
  return [
    `The fake defines ${covered} of the ${uses.length} modules the library reads.`,
    '',
    '| module | fake | what the library reads on it | library files that read it |',
    '|---|---|---|---|',
    ...rows,
  ].join('\n');
}
