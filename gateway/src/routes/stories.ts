import {
  DeleteStatusRequest,
  type EngineCommand,
  type FileInput,
  ImageStatus,
  MessageRecord,
  NewMessageIDResponse,
  reachableContacts,
  Result,
  SessionPathParams,
  TextStatus,
  VideoStatus,
  VoiceStatus,
} from '@switchboard/protocol';
import { type ConversionTarget, guardedAgent } from '@switchboard/engine-pod';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { sessionAccess } from '../auth/access.js';
import { DEFAULT_MEDIA_BODY_LIMIT } from './chatting-route.js';
import { convertedFileInput } from './media-convert.js';
import type { RouteDeps } from './context.js';
import { typed } from './context.js';
import { conversionRefused, sessionErrors } from './responses.js';

const tags = ['Status'];

/**
 * Status updates (stories), with the peer product's paths: each post is a message to
 * `status@broadcast`, answered 201 with its message record. They need the session WORKING; an
 * engine without statuses answers 422.
 */
export async function storyRoutes(app: FastifyInstance, { sessions, outbound, mediaBodyLimit, conversions }: RouteDeps): Promise<void> {
  const r = typed(app);
  const bodyLimit = mediaBodyLimit ?? DEFAULT_MEDIA_BODY_LIMIT;
  const downloads = guardedAgent(outbound);
  app.addHook('onClose', async () => downloads.close());

  const post = <Body extends z.ZodType>(
    path: string,
    summary: string,
    body: Body,
    command: (args: z.output<Body>, request: FastifyRequest) => Promise<EngineCommand>,
    converts = false,
  ) =>
    r.post(`/api/:session/status/${path}`, {
      config: sessionAccess('use'),
      bodyLimit,
      schema: {
        tags,
        summary,
        params: SessionPathParams,
        body,
        response: { 201: MessageRecord, ...sessionErrors, ...(converts ? { 429: conversionRefused } : {}) },
      },
      handler: async (request, reply) => {
        const body = request.body as z.output<Body> & { contacts?: string[] | null };
        const result = await sessions.command(
          request.params.session,
          await command({ ...body, contacts: reachableContacts(body.contacts) }, request),
        );
        return reply.code(201).send(result as MessageRecord);
      },
    });

  post('text', 'Post a text status', TextStatus, async (args) => ({ op: 'status.text', args }));
  post('image', 'Post an image status', ImageStatus, async (args) => ({ op: 'status.media', args: { kind: 'image', ...args } }));
  // `convert`: the gateway converts the file (ffmpeg, media-convert.ts) and the engine gets the result.
  const converted = (request: FastifyRequest, file: FileInput, target: ConversionTarget) =>
    convertedFileInput(request, conversions, file, target, 'file', downloads);
  post(
    'voice',
    'Post a voice status',
    VoiceStatus,
    async ({ convert, file, ...args }, request) => ({
      op: 'status.media',
      args: { kind: 'voice', ...args, convert: false, file: convert ? await converted(request, file, 'voice') : file },
    }),
    true,
  );
  post(
    'video',
    'Post a video status',
    VideoStatus,
    async ({ convert, file, ...args }, request) => ({
      op: 'status.media',
      args: { kind: 'video', ...args, convert: false, file: convert ? await converted(request, file, 'video') : file },
    }),
    true,
  );

  r.post('/api/:session/status/delete', {
    config: sessionAccess('use'),
    schema: {
      tags,
      summary: 'Delete a status the account posted',
      description: 'Revokes it for `contacts`, or for everyone it went to.',
      params: SessionPathParams,
      body: DeleteStatusRequest,
      response: { 201: Result, ...sessionErrors },
    },
    handler: async (request, reply) =>
      reply.code(201).send(
        (await sessions.command(request.params.session, {
          op: 'status.delete',
          args: { ...request.body, contacts: reachableContacts(request.body.contacts) },
        })) as Result,
      ),
  });

  r.get('/api/:session/status/new-message-id', {
    config: sessionAccess('use'),
    schema: {
      tags,
      summary: 'A new status message id',
      description: 'Post one status to contacts in batches: give it as `id` of each post.',
      params: SessionPathParams,
      response: { 200: NewMessageIDResponse, ...sessionErrors },
    },
    handler: async (request) => (await sessions.command(request.params.session, { op: 'account.newMessageId' })) as NewMessageIDResponse,
  });
}
