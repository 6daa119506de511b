import {
  Contact,
  ContactAbout,
  ContactChatPathParams,
  ContactPathParams,
  ContactPictureQuery,
  ContactProfilePicture,
  ContactQuery,
  ContactRequest,
  ContactsAllQuery,
  ContactUpdateBody,
  pageContacts,
  Result,
} from '@switchboard/protocol';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { sessionAccess } from '../auth/access.js';
import type { RouteDeps } from './context.js';
import { typed } from './context.js';
import { sessionErrors } from './responses.js';

const tags = ['Contacts'];

/**
 * Issue 16, Contacts: the people the account knows, their About text and picture, blocking, and
 * the name the account keeps for each, at the peer's paths (the session in the query or the body,
 * except the two `/api/{session}/contacts/...` routes). Every one needs the session WORKING.
 */
export async function contactBookRoutes(app: FastifyInstance, { sessions }: RouteDeps): Promise<void> {
  const r = typed(app);
  const contact = async (session: string, contactId: string) =>
    (await sessions.command(session, { op: 'contacts.get', args: { contactId } })) as Contact;

  r.get('/api/contacts/all', {
    config: sessionAccess('use', 'query.session'),
    schema: { tags, summary: 'Get all contacts', querystring: ContactsAllQuery, response: { 200: z.array(Contact), ...sessionErrors } },
    handler: async (request) => {
      const { session, ...page } = request.query;
      return pageContacts((await sessions.command(session, { op: 'contacts.list' })) as Contact[], page);
    },
  });

  r.get('/api/contacts', {
    config: sessionAccess('use', 'query.session'),
    schema: { tags, summary: 'Get contact basic info', querystring: ContactQuery, response: { 200: Contact, ...sessionErrors } },
    handler: async (request) => contact(request.query.session, request.query.contactId),
  });

  r.get('/api/:session/contacts/:id', {
    config: sessionAccess('use'),
    schema: { tags, summary: 'Get contact basic info', params: ContactPathParams, response: { 200: Contact, ...sessionErrors } },
    handler: async (request) => contact(request.params.session, request.params.id),
  });

  r.get('/api/contacts/about', {
    config: sessionAccess('use', 'query.session'),
    schema: { tags, summary: "Get the contact's About text", querystring: ContactQuery, response: { 200: ContactAbout, ...sessionErrors } },
    handler: async (request) =>
      (await sessions.command(request.query.session, { op: 'contacts.about', args: { contactId: request.query.contactId } })) as ContactAbout,
  });

  r.get('/api/contacts/profile-picture', {
    config: sessionAccess('use', 'query.session'),
    schema: {
      tags,
      summary: "Get the contact's profile picture URL",
      description: 'Every engine here asks the messaging service each time; `refresh` is accepted for clients that send it.',
      querystring: ContactPictureQuery,
      response: { 200: ContactProfilePicture, ...sessionErrors },
    },
    handler: async (request) => {
      const { session, contactId, refresh } = request.query;
      return (await sessions.command(session, { op: 'contacts.picture', args: { contactId, refresh } })) as ContactProfilePicture;
    },
  });

  for (const [path, op, summary] of [
    ['/api/contacts/block', 'contacts.block', 'Block contact'],
    ['/api/contacts/unblock', 'contacts.unblock', 'Unblock contact'],
  ] as const) {
    r.post(path, {
      config: sessionAccess('use', 'body.session'),
      schema: { tags, summary, body: ContactRequest, response: { 201: Result, ...sessionErrors } },
      handler: async (request, reply) => {
        const { session, contactId } = request.body;
        return reply.code(201).send((await sessions.command(session, { op, args: { contactId } })) as Result);
      },
    });
  }

  r.put('/api/:session/contacts/:chatId', {
    config: sessionAccess('use'),
    schema: {
      tags,
      summary: 'Create or update contact',
      description: "The name the account keeps for the contact in its address book (the phone's contact list).",
      params: ContactChatPathParams,
      body: ContactUpdateBody,
      response: { 200: Result, ...sessionErrors },
    },
    handler: async (request) =>
      (await sessions.command(request.params.session, {
        op: 'contacts.update',
        args: { contactId: request.params.chatId, ...request.body },
      })) as Result,
  });
}
