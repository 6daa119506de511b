import {
  ChatMessagePathParams,
  ChatPathParams,
  ChatPictureQuery,
  ChatPictureResponse,
  chatOf,
  EditMessageRequest,
  EditMessagePathParams,
  PinMessageRequest,
  ReadChatMessagesQuery,
  ReadChatMessagesResponse,
  Result,
} from '@switchboard/protocol';
import { forgetChatHistory, type MessageStore } from '@switchboard/engine-pod';
import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from './context.js';
import { sessionCommandRoute } from './session-command-route.js';

const tags = ['Chats'];

export interface ChatRouteDeps extends RouteDeps {
  /** The sessions' message history, which the chats list is read from (chat-lists.ts); absent: none is kept. */
  readonly messages?: MessageStore;
}

/**
 * The chats operations that act on the account (the peer product's `/api/{session}/chats...`;
 * chat-lists.ts reads the lists and messages from the history). Each is one engine command; an
 * engine without it answers 422 from the engine catalog.
 */
export async function chatRoutes(app: FastifyInstance, { sessions, messages }: ChatRouteDeps): Promise<void> {
  sessionCommandRoute(app, sessions, {
    method: 'DELETE',
    url: '/api/:session/chats/:chatId',
    tags,
    summary: 'Delete the chat',
    description: 'Its messages leave the history too, so it leaves the chats lists.',
    params: ChatPathParams,
    status: 200,
    response: Result,
    command: ({ params }) => ({ op: 'chat.delete', args: { chatId: params.chatId } }),
    // A deleted or cleared chat's messages leave the history (forgetChatHistory), so that its messages
    // list is empty, as on the phone; the chats lists, read from the history, no longer list it either
    // (for a cleared chat, until its next message: docs/compatibility.md says why). The gateway does
    // it, after the engine's command succeeded: the spec has no chat-deleted event, and here it is the
    // same for every engine in both modes (the history recorder also forgets the chats NOWEB reports
    // deleted, on the phone or by this device). A message of the chat that the recorder has yet to
    // write when this runs comes back: the chat was in use as it was deleted.
    after: async ({ params }) => {
      if (messages) await forgetChatHistory(messages, params.session, params.chatId);
    },
  });

  sessionCommandRoute(app, sessions, {
    method: 'GET',
    url: '/api/:session/chats/:chatId/picture',
    tags,
    summary: 'The chat’s picture',
    params: ChatPathParams,
    querystring: ChatPictureQuery,
    status: 200,
    response: ChatPictureResponse,
    command: ({ params, query }) => ({ op: 'chat.picture', args: { chatId: params.chatId, refresh: query.refresh } }),
  });

  sessionCommandRoute(app, sessions, {
    method: 'DELETE',
    url: '/api/:session/chats/:chatId/messages',
    tags,
    summary: 'Clear every message of the chat',
    description: 'Its messages leave the history too; the chats lists show it again with its next message.',
    params: ChatPathParams,
    status: 200,
    response: Result,
    command: ({ params }) => ({ op: 'chat.clearMessages', args: { chatId: params.chatId } }),
    after: async ({ params }) => {
      if (messages) await forgetChatHistory(messages, params.session, params.chatId);
    },
  });

  sessionCommandRoute(app, sessions, {
    method: 'POST',
    url: '/api/:session/chats/:chatId/messages/read',
    tags,
    summary: 'Mark the chat’s unread messages read',
    description: 'The unread incoming messages of the last `days` (default 7), at most the newest `messages`; answers their ids.',
    params: ChatPathParams,
    querystring: ReadChatMessagesQuery,
    status: 201,
    response: ReadChatMessagesResponse,
    command: ({ params, query }) => ({ op: 'chat.read', args: { chatId: params.chatId, messages: query.messages, days: query.days } }),
  });

  sessionCommandRoute(app, sessions, {
    method: 'PUT',
    url: '/api/:session/chats/:chatId/messages/:messageId',
    tags,
    summary: 'Edit a message the account sent',
    description: '`message.edited` follows.',
    params: EditMessagePathParams,
    body: EditMessageRequest,
    status: 200,
    response: Result,
    // The message id names its chat, and that is the chat the edit goes to, whatever `chatId` says.
    command: ({ params, body }) => ({ op: 'message.edit', args: { chatId: chatOf(params.messageId), messageId: params.messageId, ...body } }),
  });

  sessionCommandRoute(app, sessions, {
    method: 'DELETE',
    url: '/api/:session/chats/:chatId/messages/:messageId',
    tags,
    summary: 'Delete a message for everyone',
    description: 'The account’s own, or (as a group admin) another member’s; `message.revoked` follows.',
    params: ChatMessagePathParams,
    status: 200,
    response: Result,
    command: ({ params }) => ({ op: 'message.delete', args: { chatId: params.chatId, messageId: params.messageId } }),
  });

  sessionCommandRoute(app, sessions, {
    method: 'POST',
    url: '/api/:session/chats/:chatId/messages/:messageId/pin',
    tags,
    summary: 'Pin a message in the chat',
    params: ChatMessagePathParams,
    body: PinMessageRequest,
    status: 201,
    response: Result,
    command: ({ params, body }) => ({ op: 'message.pin', args: { chatId: params.chatId, messageId: params.messageId, duration: body.duration } }),
  });

  sessionCommandRoute(app, sessions, {
    method: 'POST',
    url: '/api/:session/chats/:chatId/messages/:messageId/unpin',
    tags,
    summary: 'Unpin a message in the chat',
    params: ChatMessagePathParams,
    status: 201,
    response: Result,
    command: ({ params }) => ({ op: 'message.pin', args: { chatId: params.chatId, messageId: params.messageId, duration: null } }),
  });

  for (const archive of [true, false]) {
    sessionCommandRoute(app, sessions, {
      method: 'POST',
      url: `/api/:session/chats/:chatId/${archive ? 'archive' : 'unarchive'}`,
      tags,
      summary: archive ? 'Archive the chat' : 'Unarchive the chat',
      description: '`chat.archive` follows.',
      params: ChatPathParams,
      status: 201,
      response: Result,
      command: ({ params }) => ({ op: 'chat.archive', args: { chatId: params.chatId, archive } }),
    });
  }

  sessionCommandRoute(app, sessions, {
    method: 'POST',
    url: '/api/:session/chats/:chatId/unread',
    tags,
    summary: 'Mark the chat unread',
    params: ChatPathParams,
    status: 201,
    response: Result,
    command: ({ params }) => ({ op: 'chat.unread', args: { chatId: params.chatId } }),
  });
}
