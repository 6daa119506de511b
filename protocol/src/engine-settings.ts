import { z } from 'zod';
import { ClientVersion } from './engine-versions.js';

/**
 * The members of a session's `config` that tell its engine how to connect and what to leave out:
 * the peer product's names and shapes (the spec does not show them). Not every engine can do
 * each one; the gateway refuses a setting the session's engine cannot honour (docs/api.md).
 */

/** An HTTP proxy the engine connects through (HTTP CONNECT), as `host:port` or `http://host:port`. */
export const ProxyConfig = z
  .object({
    server: z
      .string()
      .max(255, { abort: true })
      .regex(/^(https?:\/\/)?[A-Za-z0-9.-]+:\d{1,5}\/?$/, { message: 'must be "host:port" or "http://host:port"' })
      // Five digits let 65536 to 99999 through, which no URL takes (the engine and the address
      // check read the server as one): refused here, naming the range.
      .refine((server) => validPort(server), { message: 'the port must be 1 to 65535' })
      .meta({ examples: ['localhost:3128'], description: '`host:port` or `http://host:port`, the port 1 to 65535' }),
    // null is no credential: the peer takes it, and its n8n node sends it by default.
    username: z.string().min(1).max(256).nullish(),
    password: z.string().min(1).max(256).nullish().meta({ description: 'Write-only: answers show "***"' }),
  })
  .meta({ id: 'ProxyConfig' });
export type ProxyConfig = z.infer<typeof ProxyConfig>;

function validPort(server: string): boolean {
  const port = Number(/:(\d{1,5})\/?$/.exec(server)?.[1]);
  return port >= 1 && port <= 65535;
}

/** Events of these kinds of chats are dropped by the engine (null or false: kept). */
export const IgnoreConfig = z
  .object({
    status: z.boolean().nullish().meta({ description: 'Status updates (status@broadcast, stories)' }),
    groups: z.boolean().nullish().meta({ description: 'Group chats (@g.us)' }),
    channels: z.boolean().nullish().meta({ description: 'Channels (@newsletter)' }),
    broadcast: z.boolean().nullish().meta({ description: 'Broadcast lists and status (@broadcast)' }),
  })
  .meta({ id: 'IgnoreConfig' });
export type IgnoreConfig = z.infer<typeof IgnoreConfig>;

/** How the linked device shows on the phone: "Browser (Device)", e.g. "Firefox (MacOS)". */
export const ClientSessionConfig = z
  .object({
    deviceName: z.string().min(1).max(64).optional(),
    browserName: z.string().min(1).max(64).optional(),
  })
  .meta({ id: 'ClientSessionConfig' });
export type ClientSessionConfig = z.infer<typeof ClientSessionConfig>;

export const NowebConfig = z
  .object({
    markOnline: z
      .boolean()
      .optional()
      .meta({ description: 'Show the account online when the session connects; default false (the phone keeps notifying)' }),
    store: z
      .object({
        enabled: z.boolean().optional().meta({ description: 'Accepted; the message history is always kept (docs/api.md, History)' }),
        fullSync: z.boolean().optional().meta({ description: 'Ask the phone for its whole history when pairing; default false' }),
      })
      .optional(),
  })
  .meta({ id: 'NowebConfig' });
export type NowebConfig = z.infer<typeof NowebConfig>;

/** What of a session's config its engine reads when it starts: a change applies at the next start. */
export const EngineSettings = z.object({
  proxy: ProxyConfig.optional(),
  ignore: IgnoreConfig.optional(),
  client: ClientSessionConfig.optional(),
  noweb: NowebConfig.optional(),
  clientVersion: ClientVersion.optional().meta({
    description:
      "The WhatsApp Web version the session's socket engine (NOWEB, GOWS) presents to the service, instead of the engine's (SWITCHBOARD_NOWEB_CLIENT_VERSION, SWITCHBOARD_GOWS_CLIENT_VERSION, else its library's)",
  }),
});
export type EngineSettings = z.infer<typeof EngineSettings>;

/** The engine settings of a session config; only the members that are set. */
export function engineSettingsOf(config: EngineSettings): EngineSettings {
  const { proxy, ignore, client, noweb, clientVersion } = config;
  return {
    ...(proxy ? { proxy } : {}),
    ...(ignore ? { ignore } : {}),
    ...(client ? { client } : {}),
    ...(noweb ? { noweb } : {}),
    ...(clientVersion ? { clientVersion } : {}),
  };
}
