// No Docker engine runs here, so the images are never built in this suite. What can drift
// without a build is checked instead: docker/Dockerfile against the workspace it builds, and
// against the chart that runs what it makes (targets, user, entry points, chromium).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { chartDir, repoRoot } from './support.js';
import { DEFAULT_CHROMIUM_PATH } from '../../../engine-pod/src/engines/webjs/chromium-path.js';

const dockerfile = readFileSync(join(repoRoot, 'docker/Dockerfile'), 'utf8');
const dockerignore = readFileSync(join(repoRoot, 'docker/Dockerfile.dockerignore'), 'utf8');
const read = (path: string) => readFileSync(join(repoRoot, path), 'utf8');
const pkg = (dir: string) =>
  JSON.parse(read(`${dir}/package.json`)) as {
    name: string;
    packageManager?: string;
    engines?: { node: string };
    dependencies?: Record<string, string>;
    scripts?: Record<string, string>;
  };

/** Each stage's lines, by stage name. */
function stages(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of dockerfile.split('\n')) {
    const from = line.match(/^FROM\s+\S+\s+AS\s+(\S+)/i);
    if (from) out.set(from[1]!, (current = []));
    else if (current && line.trim() && !line.trim().startsWith('#')) current.push(line.trim());
  }
  return out;
}

/** The workspace package directories whose package names match, from the workspace list. */
function workspaceDirs(): string[] {
  return (parse(read('pnpm-workspace.yaml')) as { packages: string[] }).packages;
}

describe('docker/Dockerfile', () => {
  const byStage = stages();
  const targets = {
    gateway: '@switchboard/gateway',
    operator: '@switchboard/operator',
    engine: '@switchboard/engine-pod',
    'browser-engine': '@switchboard/engine-pod',
  };

  it("has one target per image, named as the chart's default repositories (make kind-up relies on it)", () => {
    const values = parse(readFileSync(join(chartDir, 'values.yaml'), 'utf8')) as { image: { repositories: Record<string, string> } };
    expect(Object.values(values.image.repositories).sort()).toEqual([...Object.keys(targets), 'gows'].sort());
    for (const target of [...Object.keys(targets), 'gows']) expect(byStage.has(target), target).toBe(true);
  });

  it('makes the gows image of the static Go engine alone, started as `switchboard-gows nats` as uid 10001', () => {
    const gows = byStage.get('gows')!;
    expect(dockerfile).toMatch(/^FROM scratch AS gows$/m);
    expect(gows).toContain('COPY engines/gows/bin/switchboard-gows /usr/local/bin/switchboard-gows');
    expect(gows).toContain('COPY --from=gows-ca /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt');
    expect(gows).toContain('ENTRYPOINT ["/usr/local/bin/switchboard-gows"]');
    expect(gows).toContain('CMD ["nats"]');
    expect(gows).toContain('USER 10001:10001');
    // scripts/images.sh builds every stage but build, runtime and gows-ca as an image.
    expect(read('scripts/images.sh')).toContain("grep -vxE 'build|runtime|gows-ca'");
  });

  it('builds on node:24-slim with the pnpm of package.json', () => {
    const root = pkg('.');
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:24-slim$/m);
    expect(root.engines?.node).toBe('>=24');
    expect(dockerfile).toContain(`ARG PNPM_VERSION=${root.packageManager!.replace(/^pnpm@/, '')}\n`);
  });

  it('copies the manifest of every workspace package before the frozen install, and keeps them in the context', () => {
    for (const dir of workspaceDirs()) {
      expect(existsSync(join(repoRoot, dir, 'package.json')), dir).toBe(true);
      expect(dockerfile, dir).toContain(`COPY ${dir}/package.json ${dir}/\n`);
    }
    expect(dockerfile).toContain('pnpm install --frozen-lockfile');
    for (const dir of ['bench', 'testkit', 'test', 'cli']) expect(dockerignore).toContain(`!${dir}/package.json`);
  });

  it('compiles every workspace package the shipped ones depend on, and deploys each production-only', () => {
    const build = byStage.get('build')!.join('\n');
    const compiled = build.match(/tsc -b ([^\n]+)/)![1]!.split(/\s+/);
    const dirOf = new Map(workspaceDirs().map((dir) => [pkg(dir).name, dir]));
    const closure = (name: string): string[] => {
      const deps = Object.entries(pkg(dirOf.get(name)!).dependencies ?? {})
        .filter(([, v]) => v.startsWith('workspace:'))
        .map(([k]) => k);
      return [dirOf.get(name)!, ...deps.flatMap(closure)];
    };
    // A package that is bundled rather than compiled (the dashboard: its build script runs Vite) is built with that script.
    const built = (dir: string) =>
      pkg(dir).scripts?.build?.startsWith('vite') ? build.includes(`pnpm --filter ${pkg(dir).name} build`) : compiled.includes(dir);
    for (const name of new Set(Object.values(targets))) {
      for (const dir of closure(name)) expect(built(dir), `${name} needs ${dir}`).toBe(true);
      expect(build).toContain(`pnpm --filter=${name} deploy --prod --legacy`);
    }
  });

  it('starts each image with the entry point its package has, as uid 10001 (the chart and the operator run them as 10001)', () => {
    const entries: Record<string, [string, string]> = {
      gateway: ['gateway/src/main.ts', 'CMD ["node", "dist/main.js"]'],
      operator: ['operator/src/main.ts', 'CMD ["node", "dist/main.js"]'],
      engine: ['engine-pod/src/pod/main.ts', 'CMD ["node", "dist/pod/main.js"]'],
      'browser-engine': ['engine-pod/src/pod/main.ts', 'CMD ["node", "dist/pod/main.js"]'],
    };
    for (const [target, [source, cmd]] of Object.entries(entries)) {
      expect(existsSync(join(repoRoot, source)), source).toBe(true);
      const lines = byStage.get(target)!;
      expect(lines, target).toContain(cmd);
      expect(lines, target).toContain('USER 10001:10001');
    }
    expect(byStage.get('runtime')!.join('\n')).toMatch(/useradd --system --uid 10001 --gid 10001/);
    expect(read('operator/src/reconcile/engine-pod-spec.ts')).toMatch(/const USER_ID = 10001;/);
    expect(read('charts/switchboard/templates/_helpers.tpl')).toMatch(/runAsUser: 10001/);
  });

  it("puts Debian's Chromium headless shell in the browser engine where the engine looks for it, and never downloads one", () => {
    const browser = byStage.get('browser-engine')!.join('\n');
    expect(browser).toMatch(/apt-get install -y --no-install-recommends chromium-headless-shell /);
    // Not the full browser besides: the shell is what the engines run.
    expect(browser).not.toMatch(/install[^\n]* chromium(?!-headless-shell)/);
    expect(browser).toContain(`SWITCHBOARD_CHROMIUM_PATH=${DEFAULT_CHROMIUM_PATH}`);
    expect(byStage.get('engine')!.join('\n')).not.toContain('chromium');
    for (const stage of ['build', 'browser-engine']) expect(byStage.get(stage)!.join('\n'), stage).toContain('PUPPETEER_SKIP_DOWNLOAD=1');
    // The engine's default browser is the one the image installs (SWITCHBOARD_CHROMIUM_PATH overrides it).
    expect(DEFAULT_CHROMIUM_PATH).toBe('/usr/lib/chromium/chromium-headless-shell');
  });

  it('keeps local installs, builds and git state out of the build context', () => {
    for (const pattern of ['**/node_modules', '**/dist', '**/*.tsbuildinfo', '.git', '.gitignore', '.tools']) {
      expect(dockerignore.split('\n'), pattern).toContain(pattern);
    }
  });
});
