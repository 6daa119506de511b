import { EVENT_NAMES, SessionName, WebhookEventFilter } from '@switchboard/protocol';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ApiKeyAuthenticator } from '../auth/authenticator.js';
import { websocketRefusal } from '../auth/authorize.js';
import { keyIdOf } from '../auth/principal.js';
import type { WsHub } from '../ws/hub.js';

const oneOrMany = <T extends z.ZodType>(item: T) => z.union([item, z.array(item)]).transform((v) => (Array.isArray(v) ? v : [v]) as z.infer<T>[]);

const WsQuery = z.object({
  session: z.union([SessionName, z.literal('*')]).default('*'),
  events: oneOrMany(WebhookEventFilter).default(['*']),
  'x-api-key': z.string().optional(),
});

/**
 * Close codes: 1008 (policy violation) for a bad key or query, as clients of this interface
 * expect, and for a key that may not watch what was asked (access.ts: admin and general keys
 * only; a key limited to a session only for that session), at once or when the key changes so;
 * 1013 (try again later) for a connection beyond its key's limit (ws/hub.ts).
 */
export async function wsRoutes(app: FastifyInstance, { hub, auth }: { hub: WsHub; auth: ApiKeyAuthenticator }): Promise<void> {
  app.get('/ws', { websocket: true, schema: { hide: true } }, (socket, request) => {
    try {
      const query = request.query as Record<string, unknown>;
      const fromProtocol = keyFromProtocols(request.headers['sec-websocket-protocol']);
      const principal =
        fromProtocol === undefined
          ? auth.authenticate(query['x-api-key'] as string | string[] | undefined, 'the x-api-key query parameter')
          : auth.authenticate(fromProtocol, `the ${KEY_PROTOCOL_PREFIX}<base64url> subprotocol`);
      const parsed = WsQuery.safeParse(query);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const unknown = unknownEvent(query['events']);
        socket.close(
          1008,
          closeReason(
            unknown === undefined
              ? `invalid ${issue?.path.join('.') ?? 'query'}: ${issue?.message ?? 'bad value'}`
              : `events: ${JSON.stringify(unknown.slice(0, 24))} is no event; use * or a name of EventName in /docs/openapi.json`,
          ),
        );
        return;
      }
      const refusal = websocketRefusal(principal, parsed.data.session, auth.incarnations);
      if (refusal) {
        socket.close(1008, closeReason(refusal));
        return;
      }
      if (!hub.add(socket, { session: parsed.data.session, events: parsed.data.events }, keyIdOf(principal))) return;
      // A key deleted, deactivated or changed so that it may no longer watch this takes its connections with it.
      const stopWatching = auth.watch(principal, (now) => {
        const reason = typeof now === 'string' ? now : websocketRefusal(now, parsed.data.session, auth.incarnations);
        if (reason !== null) socket.close(1008, reason.slice(0, 120));
      });
      socket.once('close', stopWatching);
    } catch (error) {
      socket.close(1008, closeReason(error instanceof Error ? error.message : 'unauthorized'));
    }
  });
}

/**
 * A browser cannot set headers on a websocket, and a key in the query string is a key in a URL
 * (history, proxy logs). So /ws also takes it as a subprotocol, `x-api-key.b64.<base64url of the
 * key>`, offered beside `switchboard`, the one the server picks (SELECTED_PROTOCOL): the key is
 * never echoed back. The dashboard connects this way.
 */
export const KEY_PROTOCOL_PREFIX = 'x-api-key.b64.';
export const SELECTED_PROTOCOL = 'switchboard';

/** The key in a `Sec-WebSocket-Protocol` header, or undefined when it has none. */
function keyFromProtocols(header: string | undefined): string | undefined {
  const offered = header
    ?.split(',')
    .map((protocol) => protocol.trim())
    .find((protocol) => protocol.startsWith(KEY_PROTOCOL_PREFIX));
  return offered === undefined ? undefined : Buffer.from(offered.slice(KEY_PROTOCOL_PREFIX.length), 'base64url').toString('utf8');
}

/**
 * ws's handleProtocols: `switchboard` when offered; otherwise the first one offered, as ws does by
 * default (clients that offer a subprotocol of their own keep working), but never a key-bearing one.
 */
export function selectProtocol(protocols: Set<string>): string | false {
  if (protocols.has(SELECTED_PROTOCOL)) return SELECTED_PROTOCOL;
  return [...protocols].find((protocol) => !protocol.startsWith(KEY_PROTOCOL_PREFIX)) ?? false;
}

/** The first `events` value that is neither `*` nor an event name. */
function unknownEvent(events: unknown): string | undefined {
  const names: readonly string[] = EVENT_NAMES;
  return [events].flat().find((name): name is string => typeof name === 'string' && name !== '*' && !names.includes(name));
}

/** A close reason may hold 123 bytes of UTF-8 (RFC 6455 5.5); a longer one makes close() throw. */
const MAX_CLOSE_REASON_BYTES = 123;

function closeReason(text: string): string {
  const bytes = Buffer.from(text);
  if (bytes.length <= MAX_CLOSE_REASON_BYTES) return text;
  // Cut on a character boundary: TextDecoder drops a partial last character with fatal: false.
  return new TextDecoder().decode(bytes.subarray(0, MAX_CLOSE_REASON_BYTES)).replace(/\uFFFD$/, '');
}
