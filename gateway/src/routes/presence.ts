import {
  ChatPathParams,
  ChatPresences,
  EventMessageRequest,
  MessageRecord,
  RejectCallRequest,
  Result,
  SessionPathParams,
  SessionPresenceRequest,
} from '@switchboard/protocol';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { RouteDeps } from './context.js';
import { sessionCommandRoute } from './session-command-route.js';

/**
 * Presence (`/api/{session}/presence...`), declining calls and event messages: operations of the
 * peer product on the session in the path, each one engine command.
 */
export async function presenceRoutes(app: FastifyInstance, { sessions }: RouteDeps): Promise<void> {
  const tags = ['Presence'];

  sessionCommandRoute(app, sessions, {
    method: 'POST',
    url: '/api/:session/presence',
    tags,
    summary: 'Set the account’s presence',
    description: '`online` or `offline` everywhere, or `typing`, `recording` or `paused` in one chat (`chatId`).',
    params: SessionPathParams,
    body: SessionPresenceRequest,
    status: 201,
    response: Result,
    command: ({ body }) => ({ op: 'presence.set', args: body }),
  });

  sessionCommandRoute(app, sessions, {
    method: 'GET',
    url: '/api/:session/presence',
    tags,
    summary: 'Presence of every chat subscribed to',
    params: SessionPathParams,
    status: 200,
    response: z.array(ChatPresences),
    command: () => ({ op: 'presence.list' }),
  });

  sessionCommandRoute(app, sessions, {
    method: 'GET',
    url: '/api/:session/presence/:chatId',
    tags,
    summary: 'Presence of a chat',
    description: 'Subscribes to the chat’s presence first when it is not subscribed to yet (its `presence.update` events follow).',
    params: ChatPathParams,
    status: 200,
    response: ChatPresences,
    command: ({ params }) => ({ op: 'presence.get', args: { chatId: params.chatId } }),
  });

  sessionCommandRoute(app, sessions, {
    method: 'POST',
    url: '/api/:session/presence/:chatId/subscribe',
    tags,
    summary: 'Subscribe to a chat’s presence',
    description: 'Its `presence.update` events follow.',
    params: ChatPathParams,
    status: 201,
    response: Result,
    command: ({ params }) => ({ op: 'presence.subscribe', args: { chatId: params.chatId } }),
  });

  sessionCommandRoute(app, sessions, {
    method: 'POST',
    url: '/api/:session/calls/reject',
    tags: ['Calls'],
    summary: 'Decline a ringing call',
    description: '`id` and `from` of the call’s `call.received`; `call.rejected` follows.',
    params: SessionPathParams,
    body: RejectCallRequest,
    status: 201,
    response: Result,
    command: ({ body }) => ({ op: 'call.reject', args: body }),
  });

  sessionCommandRoute(app, sessions, {
    method: 'POST',
    url: '/api/:session/events',
    tags: ['Events'],
    summary: 'Send an event message',
    description: 'An invitation the chat’s members answer (`event.response`). Answered as a send: the message record, then `message.any` and acks.',
    params: SessionPathParams,
    body: EventMessageRequest,
    status: 201,
    response: MessageRecord,
    command: ({ body }) => ({ op: 'send.event', args: body }),
  });
}
