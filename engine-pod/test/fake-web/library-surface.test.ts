import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_WEBJS_OPTIONS, webjsLaunchOptions } from '../../src/index.js';
import { FakeWhatsAppWeb } from './index.js';
import { fakeModules, scanLibrary, surfaceTable } from './library-surface.js';

/** The slice of puppeteer this test drives. */
interface Browser {
  newPage(): Promise<{ goto(url: string): Promise<unknown>; evaluate<T, A>(fn: (arg: A) => T, arg: A): Promise<T> }>;
  close(): Promise<void>;
}
const libraryRequire = createRequire(createRequire(import.meta.url).resolve('whatsapp-web.js'));
const README = new URL('./README.md', import.meta.url);
const TABLE_START = '<!-- library-surface:start -->';
const TABLE_END = '<!-- library-surface:end -->';

describe('the fake WhatsApp Web covers what the pinned whatsapp-web.js reads', () => {
  const uses = scanLibrary();
  const provided = new Set(fakeModules());
  let fake: FakeWhatsAppWeb;
  let browser: Browser;

  beforeAll(async () => {
    fake = await FakeWhatsAppWeb.start();
    const puppeteer = libraryRequire('puppeteer') as { launch(options: object): Promise<Browser> };
    browser = await puppeteer.launch(webjsLaunchOptions(DEFAULT_WEBJS_OPTIONS));
  });
  afterAll(async () => {
    await browser?.close();
    await fake?.close();
  });

  it('the scan finds the library reading its modules (so an empty scan cannot pass)', () => {
    expect(uses.length).toBeGreaterThan(100);
    expect(uses.find((use) => use.module === 'WAWebCollections')?.members).toEqual(expect.arrayContaining(['Msg', 'Chat']));
  });

  // `UPDATE_LIBRARY_SURFACE=1` writes the table again (after a module is added to the fake).
  it("the README's table is the scan of the installed library: a module read anew or no more is named here", () => {
    if (process.env.UPDATE_LIBRARY_SURFACE === '1') {
      const text = readFileSync(README, 'utf8');
      const start = text.indexOf(TABLE_START) + TABLE_START.length;
      writeFileSync(README, `${text.slice(0, start)}\n${surfaceTable(uses, provided)}\n${text.slice(text.indexOf(TABLE_END))}`);
    }
    const readme = readFileSync(README, 'utf8');
    const documented = readme.slice(readme.indexOf(TABLE_START) + TABLE_START.length, readme.indexOf(TABLE_END)).trim();
    const rowModules = (table: string) => new Set([...table.matchAll(/^\| `(WA[\w$]*)` \|/gm)].map((m) => m[1]!));
    const before = rowModules(documented);
    const now = rowModules(surfaceTable(uses, provided));
    expect({ readAnew: [...now].filter((m) => !before.has(m)), noMore: [...before].filter((m) => !now.has(m)) }).toEqual({
      readAnew: [],
      noMore: [],
    });
    // Same modules: then members, files and coverage must match too (regenerate with surfaceTable()).
    expect(documented).toBe(surfaceTable(uses, provided));
  });

  it('every member the library reads on a module the fake defines is there, on the page in Chromium', async () => {
    const page = await browser.newPage();
    await page.goto(`${fake.url}/web/${fake.version}.html`);
    const wanted = uses.filter((use) => provided.has(use.module)).map((use) => ({ module: use.module, members: [...use.members] }));
    const missing = await page.evaluate(
      (modules) =>
        modules.flatMap(({ module, members }) => {
          const exports = (globalThis as unknown as { require(name: string): Record<string, unknown> | null }).require(module);
          if (!exports) return [`${module} (the module itself)`];
          return members.filter((member) => !(member in Object(exports))).map((member) => `${module}.${member}`);
        }),
      wanted,
    );
    expect(missing).toEqual([]);
  });
});
