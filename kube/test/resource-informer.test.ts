import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig, type KubernetesListObject, type KubernetesObject, Watch } from '@kubernetes/client-node';
import { waitFor } from '@switchboard/testkit';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BOOKMARK_PERIOD_MS, DEFAULT_WATCH_QUIET_TIMEOUT_MS, ResourceInformer, type ResourceInformerOptions } from '../src/index.js';

// The informer against a stand-in API server on loopback: its list is a function, its watches
// are HTTP requests this server holds open and writes events to, line by line, as kube-apiserver does.

const PATH = '/api/v1/namespaces/ns/things';

interface HeldWatch {
  readonly query: URLSearchParams;
  readonly response: ServerResponse;
  send(type: string, object: object): void;
}

class FakeApiServer {
  readonly watches: HeldWatch[] = [];
  private readonly server: Server;

  constructor() {
    this.server = createServer((request: IncomingMessage, response: ServerResponse) => {
      const url = new URL(request.url ?? '/', 'http://localhost');
      if (url.pathname !== PATH || url.searchParams.get('watch') !== 'true') {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.flushHeaders();
      this.watches.push({
        query: url.searchParams,
        response,
        send: (type, object) => response.write(`${JSON.stringify({ type, object })}\n`),
      });
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  get latest(): HeldWatch | undefined {
    return this.watches.at(-1);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

const thing = (name: string, resourceVersion: string): KubernetesObject => ({ metadata: { name, resourceVersion } });
const bookmark = (resourceVersion: string) => ({ kind: 'Thing', metadata: { resourceVersion } });

let api: FakeApiServer;
let kubeConfig: KubeConfig;
let informer: ResourceInformer<KubernetesObject> | undefined;

beforeEach(async () => {
  api = new FakeApiServer();
  const server = await api.listen();
  kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'fake', server, skipTLSVerify: true }],
    users: [{ name: 'nobody' }],
    contexts: [{ name: 'fake', cluster: 'fake', user: 'nobody' }],
    currentContext: 'fake',
  });
});

afterEach(async () => {
  await informer?.stop();
  informer = undefined;
  vi.restoreAllMocks();
  await api.close();
});

/** An informer over the fake server whose list answers `lists` in turn (the last one from then on). */
function start(lists: KubernetesListObject<KubernetesObject>[], options: Partial<ResourceInformerOptions<KubernetesObject>> = {}) {
  const changes: { name: string; deleted: boolean }[] = [];
  let listed = 0;
  informer = new ResourceInformer<KubernetesObject>({
    name: 'things',
    kubeConfig,
    path: PATH,
    list: async () => lists[Math.min(listed++, lists.length - 1)]!,
    onChange: (object, deleted) => changes.push({ name: object.metadata?.name ?? '', deleted }),
    log: pino({ level: 'silent' }),
    backoff: { baseMs: 50, maxMs: 200 },
    ...options,
  });
  informer.start();
  return { changes, listCount: () => listed };
}

const list = (resourceVersion: string, ...items: KubernetesObject[]): KubernetesListObject<KubernetesObject> => ({
  apiVersion: 'v1',
  kind: 'List',
  metadata: { resourceVersion },
  items,
});

describe('ResourceInformer', () => {
  it('lists, then watches from the list, asking for bookmarks; events change the cache', async () => {
    const { changes } = start([list('10', thing('a', '5'))]);
    await informer!.waitForSync();
    expect(informer!.list().map((o) => o.metadata?.name)).toEqual(['a']);
    const watch = await waitFor(() => api.latest, 'the watch');
    expect(watch.query.get('resourceVersion')).toBe('10');
    expect(watch.query.get('allowWatchBookmarks')).toBe('true');

    watch.send('ADDED', thing('b', '11'));
    watch.send('MODIFIED', thing('a', '12'));
    watch.send('DELETED', thing('b', '13'));
    await waitFor(() => changes.length === 4, 'the three events');
    expect(changes).toEqual([
      { name: 'a', deleted: false },
      { name: 'b', deleted: false },
      { name: 'a', deleted: false },
      { name: 'b', deleted: true },
    ]);
    expect(informer!.get('a')?.metadata?.resourceVersion).toBe('12');
    expect(informer!.get('b')).toBeUndefined();
  });

  it('resumes a stalled watch (nothing, not even a bookmark, for the quiet timeout) from the last resourceVersion, without a new list', async () => {
    const { listCount } = start([list('10')], { quietTimeoutMs: 1_000 });
    const first = await waitFor(() => api.latest, 'the watch');
    // A bookmark moves the version to resume from; then the connection goes silent, as one a
    // network device dropped without a reset does.
    first.send('BOOKMARK', bookmark('20'));
    const second = await waitFor(() => (api.watches.length === 2 ? api.latest : undefined), 'a second watch');
    expect(second.query.get('resourceVersion')).toBe('20');
    expect(listCount()).toBe(1);
    second.send('ADDED', thing('late', '21'));
    await waitFor(() => informer!.get('late'), 'the object the resumed watch delivered');
  });

  it('keeps a quiet watch that gets bookmarks', async () => {
    start([list('10')], { quietTimeoutMs: 1_500 });
    const watch = await waitFor(() => api.latest, 'the watch');
    // Twelve bookmarks 250 ms apart: twice the quiet timeout, never that long without one.
    for (let version = 11; version <= 22; version += 1) {
      watch.send('BOOKMARK', bookmark(String(version)));
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(api.watches).toHaveLength(1);
  });

  it('lists again after 410 Gone, and reports what vanished meanwhile as deleted', async () => {
    const { changes, listCount } = start([list('10', thing('a', '5'), thing('b', '6')), list('30', thing('a', '5'))]);
    const first = await waitFor(() => api.latest, 'the watch');
    first.send('ERROR', { kind: 'Status', code: 410, message: 'too old resource version' });
    first.response.end();
    const second = await waitFor(() => (api.watches.length === 2 ? api.latest : undefined), 'a watch after the new list');
    expect(listCount()).toBe(2);
    expect(second.query.get('resourceVersion')).toBe('30');
    expect(changes).toContainEqual({ name: 'b', deleted: true });
    expect(informer!.list().map((o) => o.metadata?.name)).toEqual(['a']);
  });

  it('keeps trying to list, with its last error for callers, until a list succeeds', async () => {
    let fail = true;
    informer = new ResourceInformer<KubernetesObject>({
      name: 'things',
      kubeConfig,
      path: PATH,
      list: async () => {
        if (fail) throw new Error('the server has no such resource');
        return list('10');
      },
      onChange: () => {},
      log: pino({ level: 'silent' }),
      backoff: { baseMs: 50, maxMs: 200 },
    });
    informer.start();
    await waitFor(() => informer!.lastError, 'a failed list');
    expect(informer.hasSynced).toBe(false);
    expect((informer.lastError as Error).message).toMatch(/no such resource/);
    fail = false;
    await informer.waitForSync();
    expect(informer.lastError).toBeUndefined();
  });

  it('resync hands every cached object to onChange', async () => {
    const { changes } = start([list('10', thing('a', '5'), thing('b', '6'))], { resyncMs: 100 });
    await waitFor(() => changes.length >= 6, 'two resyncs');
    expect(changes.slice(2, 6)).toEqual([
      { name: 'a', deleted: false },
      { name: 'b', deleted: false },
      { name: 'a', deleted: false },
      { name: 'b', deleted: false },
    ]);
  });

  it("by default waits longer than the bookmark period before it takes a watch as stalled, and so does client-node's own timeout", async () => {
    expect(DEFAULT_WATCH_QUIET_TIMEOUT_MS).toBeGreaterThan(BOOKMARK_PERIOD_MS);
    const watches = vi.spyOn(Watch.prototype, 'watch');
    start([list('10')]);
    await waitFor(() => api.latest, 'the watch');
    const requestTimeouts = watches.mock.contexts.map((watch) => (watch as { requestTimeoutMs: number }).requestTimeoutMs);
    expect(requestTimeouts).toHaveLength(1);
    expect(requestTimeouts[0]).toBeGreaterThan(DEFAULT_WATCH_QUIET_TIMEOUT_MS);
  });
});
