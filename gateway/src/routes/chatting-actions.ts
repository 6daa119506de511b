import {
  ChatRequest,
  EmptyResult,
  MessageForwardRequest,
  MessageReactionPayload,
  MessageReactionRequest,
  MessageRecord,
  MessageStarRequest,
  SendSeenRequest,
  SendSeenResult,
} from '@switchboard/protocol';
import type { FastifyInstance } from 'fastify';
import { chattingRoute } from './chatting-route.js';
import type { RouteDeps } from './context.js';

/** For operations the spec describes without a body: an empty JSON object, which any client can parse. */
const empty = () => ({});

/** Spec 4.5: operations on messages and chats that exist. */
export async function chattingActionRoutes(app: FastifyInstance, deps: RouteDeps): Promise<void> {
  chattingRoute(app, deps, {
    method: 'POST',
    url: '/api/forwardMessage',
    summary: 'Forward a message',
    body: MessageForwardRequest,
    status: 201,
    response: MessageRecord,
    command: (args) => ({ op: 'message.forward', args }),
  });

  chattingRoute(app, deps, {
    method: 'POST',
    url: '/api/sendSeen',
    summary: 'Mark messages as read',
    description: 'Sends read receipts for `messageIds` (or the deprecated `messageId`) of `chatId`.',
    body: SendSeenRequest,
    status: 201,
    response: SendSeenResult,
    command: (args) => ({ op: 'chat.seen', args }),
  });

  for (const [url, typing] of [
    ['/api/startTyping', true],
    ['/api/stopTyping', false],
  ] as const) {
    chattingRoute(app, deps, {
      method: 'POST',
      url,
      summary: typing ? 'Start typing in a chat' : 'Stop typing in a chat',
      body: ChatRequest,
      status: 201,
      response: EmptyResult,
      command: (args) => ({ op: 'chat.typing', args: { ...args, typing } }),
      answer: empty,
    });
  }

  chattingRoute(app, deps, {
    method: 'PUT',
    url: '/api/reaction',
    summary: 'React to a message with an emoji',
    description: 'One emoji, or "" to take the reaction back. Answers the reaction as the `message.reaction` event carries it.',
    body: MessageReactionRequest,
    status: 200,
    response: MessageReactionPayload,
    command: (args) => ({ op: 'message.react', args }),
  });

  chattingRoute(app, deps, {
    method: 'PUT',
    url: '/api/star',
    summary: 'Star or unstar a message',
    body: MessageStarRequest,
    status: 200,
    response: EmptyResult,
    command: (args) => ({ op: 'message.star', args }),
    answer: empty,
  });
}
