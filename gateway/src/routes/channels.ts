import {
  Channel,
  ChannelCategory,
  ChannelCountry,
  ChannelListQuery,
  ChannelListResult,
  ChannelLookupParams,
  ChannelMessage,
  ChannelPathParams,
  ChannelPreviewQuery,
  channelCountries,
  channelRef,
  ChannelSearchByText,
  ChannelSearchByView,
  ChannelView,
  CHANNEL_CATEGORIES,
  CHANNEL_VIEWS,
  CreateChannelRequest,
  type EngineCommand,
  Result,
  SessionPathParams,
} from '@switchboard/protocol';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { sessionAccess } from '../auth/access.js';
import { DEFAULT_MEDIA_BODY_LIMIT } from './chatting-route.js';
import type { RouteDeps } from './context.js';
import { typed } from './context.js';
import { sessionErrors } from './responses.js';

const tags = ['Channels'];

/**
 * Channels (WhatsApp newsletters), with the peer product's paths and statuses: the account's own
 * channels, following and muting, and the channel directory's search. Every operation but the
 * three lists of search filters (answered here, the same for every engine) is an engine command
 * and needs the session WORKING; an engine without channels answers 422.
 */
export async function channelRoutes(app: FastifyInstance, { sessions, mediaBodyLimit }: RouteDeps): Promise<void> {
  const r = typed(app);
  const run = (session: string, command: EngineCommand) => sessions.command(session, command);

  r.get('/api/:session/channels', {
    config: sessionAccess('use'),
    schema: {
      tags,
      summary: 'The channels the account owns, administers or follows',
      params: SessionPathParams,
      querystring: ChannelListQuery,
      response: { 200: z.array(Channel), ...sessionErrors },
    },
    handler: async (request) => (await run(request.params.session, { op: 'channels.list', args: request.query })) as Channel[],
  });

  r.post('/api/:session/channels', {
    config: sessionAccess('use'),
    bodyLimit: mediaBodyLimit ?? DEFAULT_MEDIA_BODY_LIMIT,
    schema: {
      tags,
      summary: 'Create a channel',
      description: 'The account becomes its OWNER. `picture`, optional, by `url` (the engine downloads it) or base64 `data`.',
      params: SessionPathParams,
      body: CreateChannelRequest,
      response: { 201: Channel, ...sessionErrors },
    },
    handler: async (request, reply) =>
      reply.code(201).send((await run(request.params.session, { op: 'channels.create', args: request.body })) as Channel),
  });

  // Before `/:id`: these paths would match it otherwise.
  const lists = [
    ['views', 'The views the directory can be searched by', ChannelView, () => CHANNEL_VIEWS.map((view) => ({ ...view }))],
    ['countries', 'The countries the directory can be searched in', ChannelCountry, channelCountries],
    ['categories', 'The categories the directory can be filtered by', ChannelCategory, () => CHANNEL_CATEGORIES.map((category) => ({ ...category }))],
  ] as const;
  for (const [path, summary, item, values] of lists) {
    r.get(`/api/:session/channels/search/${path}`, {
      config: sessionAccess('use'),
      schema: { tags, summary, params: SessionPathParams, response: { 200: z.array(item), ...sessionErrors } },
      handler: async (request) => {
        // The session must exist, as for every path under it; the list is the same for all.
        await sessions.get(request.params.session, { expandApps: false });
        return values();
      },
    });
  }

  r.post('/api/:session/channels/search/by-view', {
    config: sessionAccess('use', 'params.session', 'read'),
    schema: {
      tags,
      summary: 'Search the channel directory by view',
      description: 'A view (GET .../search/views), the countries and categories it is limited to, a page at a time (`startCursor`).',
      params: SessionPathParams,
      body: ChannelSearchByView,
      response: { 200: ChannelListResult, ...sessionErrors },
    },
    handler: async (request) =>
      (await run(request.params.session, { op: 'channels.search', args: { by: 'view', ...request.body } })) as ChannelListResult,
  });

  r.post('/api/:session/channels/search/by-text', {
    config: sessionAccess('use', 'params.session', 'read'),
    schema: {
      tags,
      summary: 'Search the channel directory by text',
      description: 'Channels whose name or description contains `text`, a page at a time (`startCursor`).',
      params: SessionPathParams,
      body: ChannelSearchByText,
      response: { 200: ChannelListResult, ...sessionErrors },
    },
    handler: async (request) =>
      (await run(request.params.session, { op: 'channels.search', args: { by: 'text', ...request.body } })) as ChannelListResult,
  });

  r.get('/api/:session/channels/:id', {
    config: sessionAccess('use'),
    schema: {
      tags,
      summary: 'A channel, by id or invite code',
      description: 'The id (`123@newsletter`), the invite code, or the invite link (`https://www.whatsapp.com/channel/<code>`, URL-encoded).',
      params: ChannelLookupParams,
      response: { 200: Channel, ...sessionErrors },
    },
    handler: async (request) =>
      (await run(request.params.session, { op: 'channels.get', args: { channel: channelRef(request.params.id)! } })) as Channel,
  });

  r.get('/api/:session/channels/:id/messages/preview', {
    config: sessionAccess('use'),
    schema: {
      tags,
      summary: "A channel's latest posts",
      description: 'By id, invite code or invite link, as GET .../channels/{id}; `limit` posts, oldest first, with their reactions and views.',
      params: ChannelLookupParams,
      querystring: ChannelPreviewQuery,
      response: { 200: z.array(ChannelMessage), ...sessionErrors },
    },
    handler: async (request) =>
      (await run(request.params.session, {
        op: 'channels.preview',
        args: { channel: channelRef(request.params.id)!, ...request.query },
      })) as ChannelMessage[],
  });

  r.delete('/api/:session/channels/:id', {
    config: sessionAccess('use'),
    schema: {
      tags,
      summary: 'Delete a channel the account owns',
      params: ChannelPathParams,
      response: { 200: Result, ...sessionErrors },
    },
    handler: async (request) => (await run(request.params.session, { op: 'channels.delete', args: { id: request.params.id } })) as Result,
  });

  const actions = [
    ['follow', 'channels.follow', 'Follow a channel'],
    ['unfollow', 'channels.unfollow', 'Unfollow a channel'],
    ['mute', 'channels.mute', 'Mute a channel the account follows'],
    ['unmute', 'channels.unmute', 'Unmute a channel the account follows'],
  ] as const;
  for (const [path, op, summary] of actions) {
    r.post(`/api/:session/channels/:id/${path}`, {
      config: sessionAccess('use'),
      schema: { tags, summary, params: ChannelPathParams, response: { 201: Result, ...sessionErrors } },
      handler: async (request, reply) => reply.code(201).send((await run(request.params.session, { op, args: { id: request.params.id } })) as Result),
    });
  }
}
