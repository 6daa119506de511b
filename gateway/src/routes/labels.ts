import { ChatId, Label, LabelBody, LabelId, LabelledChat, Result, SessionName, SetLabelsRequest } from '@switchboard/protocol';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { sessionAccess } from '../auth/access.js';
import type { RouteDeps } from './context.js';
import { typed } from './context.js';
import { sessionErrors } from './responses.js';

const tags = ['Labels'];
const SessionParams = z.object({ session: SessionName });
const LabelParams = z.object({ session: SessionName, labelId: LabelId });
const ChatParams = z.object({ session: SessionName, chatId: ChatId });

/**
 * Issue 16, Labels: a business account's chat labels. Each change emits its `label.*` events,
 * as the same change made on the phone does.
 */
export async function labelRoutes(app: FastifyInstance, { sessions }: RouteDeps): Promise<void> {
  const r = typed(app);

  r.get('/api/:session/labels', {
    config: sessionAccess('use'),
    schema: { tags, summary: 'Get all labels', params: SessionParams, response: { 200: z.array(Label), ...sessionErrors } },
    handler: async (request) => (await sessions.command(request.params.session, { op: 'labels.list' })) as Label[],
  });

  r.post('/api/:session/labels', {
    config: sessionAccess('use'),
    schema: { tags, summary: 'Create a new label', params: SessionParams, body: LabelBody, response: { 201: Label, ...sessionErrors } },
    handler: async (request, reply) =>
      reply.code(201).send((await sessions.command(request.params.session, { op: 'labels.create', args: request.body })) as Label),
  });

  r.put('/api/:session/labels/:labelId', {
    config: sessionAccess('use'),
    schema: { tags, summary: 'Update a label', params: LabelParams, body: LabelBody, response: { 200: Label, ...sessionErrors } },
    handler: async (request) =>
      (await sessions.command(request.params.session, {
        op: 'labels.update',
        args: { id: request.params.labelId, label: request.body },
      })) as Label,
  });

  r.delete('/api/:session/labels/:labelId', {
    config: sessionAccess('use'),
    schema: { tags, summary: 'Delete a label', params: LabelParams, response: { 200: Result, ...sessionErrors } },
    handler: async (request) =>
      (await sessions.command(request.params.session, { op: 'labels.delete', args: { id: request.params.labelId } })) as Result,
  });

  r.get('/api/:session/labels/chats/:chatId', {
    config: sessionAccess('use'),
    schema: { tags, summary: 'Get labels for the chat', params: ChatParams, response: { 200: z.array(Label), ...sessionErrors } },
    handler: async (request) =>
      (await sessions.command(request.params.session, { op: 'labels.ofChat', args: { chatId: request.params.chatId } })) as Label[],
  });

  r.put('/api/:session/labels/chats/:chatId', {
    config: sessionAccess('use'),
    schema: {
      tags,
      summary: 'Save labels for the chat',
      description: 'The chat carries these labels from now on: each one added emits `label.chat.added`, each one taken off `label.chat.deleted`.',
      params: ChatParams,
      body: SetLabelsRequest,
      response: { 200: Result, ...sessionErrors },
    },
    handler: async (request) =>
      (await sessions.command(request.params.session, {
        op: 'labels.setForChat',
        args: { chatId: request.params.chatId, labels: request.body.labels },
      })) as Result,
  });

  r.get('/api/:session/labels/:labelId/chats', {
    config: sessionAccess('use'),
    schema: { tags, summary: 'Get chats by label', params: LabelParams, response: { 200: z.array(LabelledChat), ...sessionErrors } },
    handler: async (request) =>
      (await sessions.command(request.params.session, { op: 'labels.chats', args: { id: request.params.labelId } })) as LabelledChat[],
  });
}
