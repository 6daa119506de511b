import { z } from 'zod';
import { QueryBoolean } from './session.js';

/**
 * The Server routes of the peer product's interface (issue 16): liveness, health, version,
 * environment, status and stop. Shaped as the peer's clients parse them.
 */

/** `GET /ping`. */
export const PingResponse = z.object({ message: z.literal('pong') }).meta({ id: 'PingResponse' });

const CheckStatus = z.looseObject({
  status: z.enum(['up', 'down']),
  message: z.string().optional().meta({ description: 'Why a check is down' }),
});
const Checks = z.record(z.string(), CheckStatus);

/**
 * `GET /health`: every check this gateway's mode has (local: its SQLite database; cluster: NATS
 * and the Kubernetes API's session cache). 200 when all are up, 503 naming each that is down.
 */
export const HealthCheckResult = z
  .object({
    status: z.enum(['ok', 'error']),
    info: Checks.meta({ description: 'The checks that are up' }),
    error: Checks.meta({ description: 'The checks that are down, each with its message' }),
    details: Checks.meta({ description: 'Every check' }),
  })
  .meta({ id: 'HealthCheckResult' });
export type HealthCheckResult = z.infer<typeof HealthCheckResult>;

const Worker = z.object({ id: z.string().meta({ description: 'The host name of the process that answers (the pod name in Kubernetes)' }) });

/** `GET /api/server/version` (and the deprecated `GET /api/version`). */
export const ServerVersion = z
  .object({
    version: z.string(),
    engine: z.string().meta({ description: 'The default engine of sessions created without one' }),
    tier: z.string(),
    browser: z.string().meta({ description: 'The browser the browser engines (WEBJS) drive' }),
    platform: z.string().meta({ description: 'Operating system and CPU architecture, `linux/x64`' }),
    worker: Worker,
  })
  .meta({ id: 'ServerVersion' });
export type ServerVersion = z.infer<typeof ServerVersion>;

/** `GET /api/server/status`. */
export const ServerStatus = z
  .object({
    startTimestamp: z.number().int().meta({ description: 'When this process started, ms since the Unix epoch' }),
    uptime: z.number().int().meta({ description: 'How long it has run, in ms' }),
    worker: Worker,
  })
  .meta({ id: 'ServerStatus' });
export type ServerStatus = z.infer<typeof ServerStatus>;

export const ServerEnvironmentQuery = z.object({
  all: QueryBoolean.default(false).meta({
    description: 'Also list the process’s other variables, by name: their values are masked',
  }),
});

/** `GET /api/server/environment`: variable name to value, secrets masked. */
export const ServerEnvironment = z.record(z.string(), z.string()).meta({ id: 'ServerEnvironment' });

export const ServerStopRequest = z
  .object({
    force: z.boolean().default(false).meta({ description: 'Exit at once instead of closing connections and sessions first' }),
  })
  .meta({ id: 'ServerStopRequest' });

export const ServerStopResponse = z.object({ stopping: z.literal(true) }).meta({ id: 'ServerStopResponse' });

/** `GET /api/server/debug/cpu`: how long to sample. */
export const CpuProfileQuery = z.object({
  seconds: z.coerce.number().int().min(1).max(300).default(30).meta({ description: 'How many seconds to sample the CPU: 1 to 300, default 30' }),
});
