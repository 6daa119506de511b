import { hostname } from 'node:os';
import { chromiumPathFromEnv } from '@switchboard/engine-pod';
import {
  EngineCatalogEntry,
  engineCatalogEntries,
  type EngineName,
  ServerEnvironment,
  ServerEnvironmentQuery,
  ServerStatus,
  ServerStopRequest,
  ServerStopResponse,
  ServerVersion,
} from '@switchboard/protocol';
import type { FastifyInstance } from 'fastify';
import { ADMIN_ONLY } from '../auth/access.js';
import { TIER, VERSION } from '../version.js';
import { typed } from './context.js';
import { serverDebugRoutes } from './server-debug.js';
import { commonErrors } from './responses.js';

const tags = ['Server'];

/** What the Server routes tell about this process and do to it. */
export interface ServerDeps {
  readonly defaultEngine: EngineName;
  /** Serve the debug routes (routes/server-debug.ts): SWITCHBOARD_DEBUG_ROUTES. */
  readonly debugRoutes: boolean;
  /** Each check `GET /health` runs (routes/health.ts): one that throws is down, with its message. */
  readonly checks: Readonly<Record<string, () => unknown>>;
  /**
   * `POST /api/server/stop`, called once the answer is sent: the process ends (main.ts), and
   * whatever runs it (systemd, Docker, Kubernetes) starts it again.
   */
  readonly stop: (force: boolean) => void;
}

const STARTED_AT = Date.now();

/** The process that answers, as the peer's clients read it (`worker.id`). */
const worker = () => ({ id: hostname() });

/** Variables whose value is a secret, whatever their prefix. */
const SECRET = /KEY|SECRET|TOKEN|PASSWORD|PASSWD|CRED|AUTH|HMAC|HEADERS|COOKIE|PRIVATE|_URL$/i;
const OWN = /^SWITCHBOARD_/;
const MASK = '***';

/**
 * The environment this process runs with: its own settings (`SWITCHBOARD_*`) with every secret
 * masked (keys, HMAC keys, header values, credentials, and URLs, which may carry a password);
 * with `all`, also every other variable's name, its value masked, since nothing tells which of
 * them are secrets.
 */
export function serverEnvironment(env: NodeJS.ProcessEnv, all: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env).sort(([a], [b]) => a.localeCompare(b))) {
    if (value === undefined) continue;
    if (OWN.test(name)) out[name] = SECRET.test(name) ? MASK : value;
    else if (all) out[name] = MASK;
  }
  return out;
}

/**
 * What this server is and can do, beside the interface's session routes: the engines this
 * build has (protocol's engine catalog, the table the gateway's 422s and the CRD come from), its
 * version, environment and status, and a stop. All admin only, as they tell about and act on
 * the whole server rather than one session.
 */
export async function serverRoutes(app: FastifyInstance, deps: ServerDeps): Promise<void> {
  const r = typed(app);

  r.get('/api/server/engines', {
    config: ADMIN_ONLY,
    schema: {
      tags,
      summary: 'The engines this build has and what each can do',
      response: { 200: EngineCatalogEntry.array(), ...commonErrors },
    },
    handler: async () => engineCatalogEntries(),
  });

  const version = (): ServerVersion => ({
    version: VERSION,
    engine: deps.defaultEngine,
    tier: TIER,
    browser: chromiumPathFromEnv(process.env),
    platform: `${process.platform}/${process.arch}`,
    worker: worker(),
  });
  r.get('/api/server/version', {
    config: ADMIN_ONLY,
    schema: { tags, summary: 'The version of this server', response: { 200: ServerVersion, ...commonErrors } },
    handler: async () => version(),
  });
  r.get('/api/version', {
    config: ADMIN_ONLY,
    schema: {
      tags,
      deprecated: true,
      summary: 'The version of this server',
      description: 'Deprecated: use GET /api/server/version.',
      response: { 200: ServerVersion, ...commonErrors },
    },
    handler: async () => version(),
  });

  r.get('/api/server/environment', {
    config: ADMIN_ONLY,
    schema: {
      tags,
      summary: 'The environment variables this server runs with, secrets masked',
      querystring: ServerEnvironmentQuery,
      response: { 200: ServerEnvironment, ...commonErrors },
    },
    handler: async (request) => serverEnvironment(process.env, request.query.all),
  });

  r.get('/api/server/status', {
    config: ADMIN_ONLY,
    schema: { tags, summary: 'When this server started, and how long it has run', response: { 200: ServerStatus, ...commonErrors } },
    handler: async () => ({ startTimestamp: STARTED_AT, uptime: Date.now() - STARTED_AT, worker: worker() }),
  });

  if (deps.debugRoutes) await app.register(serverDebugRoutes);

  r.post('/api/server/stop', {
    config: ADMIN_ONLY,
    schema: {
      tags,
      summary: 'Stop this server process; whatever runs it starts it again',
      description:
        'Local mode: the gateway closes its sessions and connections (at once with `force`) and exits; a supervisor (systemd, ' +
        'Docker) starts it again, and its sessions start again with it. Cluster mode: only this gateway replica exits, and ' +
        'Kubernetes starts it again; the other replicas keep serving and the sessions keep running in their engine pods.',
      body: ServerStopRequest,
      response: { 201: ServerStopResponse, ...commonErrors },
    },
    handler: async (request, reply) => {
      // After the answer has left: the caller learns the stop was taken before the connection closes.
      reply.raw.once('finish', () => deps.stop(request.body.force));
      return reply.code(201).send({ stopping: true });
    },
  });
}
