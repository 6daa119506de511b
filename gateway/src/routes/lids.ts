import type { MessageStore } from '@switchboard/engine-pod';
import { CountResponse, LidPathParams, LidsQuery, LidToPhoneNumber, PhoneNumberPathParams, SessionPathParams } from '@switchboard/protocol';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { sessionAccess } from '../auth/access.js';
import type { RouteDeps } from './context.js';
import { typed } from './context.js';
import { sessionErrors } from './responses.js';

export interface LidRouteDeps extends RouteDeps {
  readonly messages: MessageStore;
}

const tags = ['Contacts'];

/**
 * Issue 16, LIDs: the session's map of linked ids (`@lid`) to phone-number ids, learned from
 * every message and event that carried both, kept with the message history (local SQLite,
 * cluster NATS KV) and so answered whether or not the session is running. A lookup that finds
 * nothing answers the id asked for alone, as the peer does.
 */
export async function lidRoutes(app: FastifyInstance, { sessions, messages }: LidRouteDeps): Promise<void> {
  const r = typed(app);
  // An unknown session is a 404, not an empty map.
  const known = (session: string) => sessions.get(session, { expandApps: false });

  r.get('/api/:session/lids', {
    config: sessionAccess('use'),
    schema: {
      tags,
      summary: 'Get all known lids to phone number mapping',
      params: SessionPathParams,
      querystring: LidsQuery,
      response: { 200: z.array(LidToPhoneNumber), ...sessionErrors },
    },
    handler: async (request) => {
      await known(request.params.session);
      return messages.lids(request.params.session, request.query);
    },
  });

  r.get('/api/:session/lids/count', {
    config: sessionAccess('use'),
    schema: { tags, summary: 'Get the number of known lids', params: SessionPathParams, response: { 200: CountResponse, ...sessionErrors } },
    handler: async (request) => {
      await known(request.params.session);
      return { count: await messages.lidCount(request.params.session) };
    },
  });

  r.get('/api/:session/lids/pn/:phoneNumber', {
    config: sessionAccess('use'),
    schema: {
      tags,
      summary: 'Get lid by phone number (chat id)',
      params: PhoneNumberPathParams,
      response: { 200: LidToPhoneNumber, ...sessionErrors },
    },
    handler: async (request) => {
      const { session, phoneNumber: pn } = request.params;
      await known(session);
      const lid = await messages.aliasOf(session, pn);
      return lid?.endsWith('@lid') ? { lid, pn } : { pn };
    },
  });

  r.get('/api/:session/lids/:lid', {
    config: sessionAccess('use'),
    schema: { tags, summary: 'Get phone number by lid', params: LidPathParams, response: { 200: LidToPhoneNumber, ...sessionErrors } },
    handler: async (request) => {
      const { session, lid } = request.params;
      await known(session);
      const pn = await messages.aliasOf(session, lid);
      return pn?.endsWith('@c.us') ? { lid, pn } : { lid };
    },
  });
}
