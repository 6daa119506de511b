import { z } from 'zod';

/** whatsmeow keeps each part of a version in a uint32 (`store.WAVersionContainer`). */
const PART_MAX = 4_294_967_295;

/**
 * The WhatsApp Web version a socket engine presents to the service in its handshake
 * (`ClientPayload.userAgent.appVersion`): Baileys' `version` option, whatsmeow's
 * `store.SetWAVersion`. The service refuses one it has retired (a 405 "client outdated" connect
 * failure), so it is a setting: per engine (SWITCHBOARD_NOWEB_CLIENT_VERSION,
 * SWITCHBOARD_GOWS_CLIENT_VERSION) and per session (`config.clientVersion`).
 */
export const ClientVersion = z
  .string()
  .max(32, { abort: true })
  .regex(/^\d{1,10}\.\d{1,10}\.\d{1,10}$/, { message: 'must be three whole numbers joined by dots, as "2.3000.1023456789"', abort: true })
  .refine((version) => version.split('.').every((part) => Number(part) <= PART_MAX), {
    message: `each of its three numbers must be at most ${PART_MAX}`,
  })
  .meta({
    id: 'ClientVersion',
    examples: ['2.3000.1023456789'],
    description: 'A WhatsApp Web version, three whole numbers joined by dots (each at most 4294967295)',
  });
export type ClientVersion = z.infer<typeof ClientVersion>;

/** Why `raw` is no client version, in the words of ClientVersion's rules; null when it is one. */
export function clientVersionProblem(raw: string): string | null {
  const parsed = ClientVersion.safeParse(raw);
  return parsed.success ? null : (parsed.error.issues[0]?.message ?? 'not a client version');
}

/**
 * A client version variable's value (SWITCHBOARD_NOWEB_CLIENT_VERSION, ...), held to the rules of
 * a session's `config.clientVersion`; undefined when unset. A wrong value throws, naming the
 * variable: the engines' options and the operator's configuration read them alike.
 */
export function clientVersionFromEnv(env: Readonly<Record<string, string | undefined>>, variable: string): string | undefined {
  const raw = env[variable];
  if (!raw) return undefined;
  const problem = clientVersionProblem(raw);
  if (problem) throw new Error(`${variable}: ${problem}, got ${JSON.stringify(raw)}`);
  return raw;
}

/**
 * What a session runs, as its engine reports it once started: what a rollout compares and pins
 * (issue 31). Every member is a fact read from the running engine, never a configured guess.
 */
export const EngineVersions = z
  .object({
    image: z
      .string()
      .max(1024)
      .nullable()
      .meta({
        description: "The engine pod's image (cluster mode); null in local mode, where the engine runs in the gateway's process",
        examples: ['registry.example/switchboard-engine-socket:1.4.0'],
      }),
    library: z
      .object({
        name: z
          .string()
          .max(64)
          .meta({ examples: ['Baileys', 'whatsmeow'] }),
        version: z
          .string()
          .max(128)
          .meta({
            description: "Baileys' package version, whatsmeow's Go module version, this build's for SANDBOX",
            examples: ['7.0.0-rc14', 'v0.0.0-20251217143725-11cf47c62d32'],
          }),
      })
      .meta({ description: 'The library the engine is built on' }),
    client: z
      .string()
      .max(64)
      .nullable()
      .meta({
        description: 'The client version the engine presents to the service (socket engines: the WhatsApp Web version); null when it presents none',
        examples: ['2.3000.1023456789'],
      }),
  })
  .meta({ id: 'EngineVersions' });
export type EngineVersions = z.infer<typeof EngineVersions>;

/**
 * What an engine itself knows of its versions, which each `session.status` carries once it has
 * said so; the image is added by whoever knows the pod (the operator), or is none (local mode).
 */
export const EngineLibraryVersions = EngineVersions.omit({ image: true }).meta({ id: 'EngineLibraryVersions' });
export type EngineLibraryVersions = z.infer<typeof EngineLibraryVersions>;
