import {
  MessageButtonReply,
  MessageContactVcardRequest,
  MessageLocationRequest,
  MessagePollRequest,
  MessagePollVoteRequest,
  MessageRecord,
  PollVotePayload,
  SendButtonsRequest,
  SendListRequest,
} from '@switchboard/protocol';
import type { FastifyInstance } from 'fastify';
import { chattingRoute, DEFAULT_MEDIA_BODY_LIMIT } from './chatting-route.js';
import type { RouteDeps } from './context.js';

/** Spec 4.5: buttons, lists, polls, locations and contact cards. Each answers 201. */
export async function chattingInteractiveRoutes(app: FastifyInstance, deps: RouteDeps): Promise<void> {
  const { mediaBodyLimit } = deps;
  const send = { method: 'POST', status: 201, response: MessageRecord, paced: true } as const;

  chattingRoute(app, deps, {
    ...send,
    url: '/api/sendButtons',
    summary: 'Send a message with buttons',
    description: 'Deprecated by the messaging service, which shows buttons to few clients. `headerImage` by `url` or base64 `data`.',
    deprecated: true,
    bodyLimit: mediaBodyLimit ?? DEFAULT_MEDIA_BODY_LIMIT,
    body: SendButtonsRequest,
    command: (args) => ({ op: 'send.buttons', args }),
  });

  chattingRoute(app, deps, {
    ...send,
    url: '/api/sendList',
    summary: 'Send a list message (sections and rows)',
    description: 'At most 10 rows over all sections; row ids must differ.',
    body: SendListRequest,
    command: (args) => ({ op: 'send.list', args }),
  });

  chattingRoute(app, deps, {
    ...send,
    url: '/api/sendPoll',
    summary: 'Send a poll',
    description: '2 to 12 different options; `multipleAnswers` lets a voter choose several.',
    body: MessagePollRequest,
    command: (args) => ({ op: 'send.poll', args }),
  });

  chattingRoute(app, deps, {
    method: 'POST',
    status: 201,
    response: PollVotePayload,
    url: '/api/sendPollVote',
    summary: 'Vote on a poll',
    description: 'Answers the vote as the `poll.vote` event carries it. An empty `votes` takes the vote back.',
    body: MessagePollVoteRequest,
    command: (args) => ({ op: 'send.pollVote', args }),
  });

  chattingRoute(app, deps, {
    ...send,
    url: '/api/sendLocation',
    summary: 'Send a location',
    body: MessageLocationRequest,
    command: (args) => ({ op: 'send.location', args }),
  });

  chattingRoute(app, deps, {
    ...send,
    url: '/api/sendContactVcard',
    summary: 'Send contact cards',
    description: 'Each contact is a `vcard`, or `fullName` and `phoneNumber` (with optional `organization`, `whatsappId`) to build one from.',
    body: MessageContactVcardRequest,
    command: (args) => ({ op: 'send.contactVcard', args }),
  });

  chattingRoute(app, deps, {
    ...send,
    // An answer to the message it replies to, as a reaction is: not paced.
    paced: false,
    url: '/api/send/buttons/reply',
    summary: 'Reply to a button message',
    description: '`replyTo` is the button message; the reply carries the chosen button.',
    body: MessageButtonReply,
    command: (args) => ({ op: 'send.buttonReply', args }),
  });
}
