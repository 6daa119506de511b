import { MyProfile, ProfileNameRequest, ProfilePictureRequest, ProfileStatusRequest, Result, SessionPathParams } from '@switchboard/protocol';
import type { FastifyInstance } from 'fastify';
import { sessionAccess } from '../auth/access.js';
import type { RouteDeps } from './context.js';
import { typed } from './context.js';
import { sessionErrors } from './responses.js';

const tags = ['Profile'];

/** Spec 4.4: the account's own profile. Every operation needs the session WORKING. */
export async function profileRoutes(app: FastifyInstance, { sessions }: RouteDeps): Promise<void> {
  const r = typed(app);
  const changed = { 200: Result, ...sessionErrors };

  r.get('/api/:session/profile', {
    config: sessionAccess('use'),
    schema: { tags, summary: 'Get my profile', params: SessionPathParams, response: { 200: MyProfile, ...sessionErrors } },
    handler: async (request) => (await sessions.command(request.params.session, { op: 'profile.get' })) as MyProfile,
  });

  r.put('/api/:session/profile/name', {
    config: sessionAccess('use'),
    schema: { tags, summary: 'Set my profile name', params: SessionPathParams, body: ProfileNameRequest, response: changed },
    handler: async (request) => (await sessions.command(request.params.session, { op: 'profile.setName', args: request.body })) as Result,
  });

  r.put('/api/:session/profile/status', {
    config: sessionAccess('use'),
    schema: { tags, summary: 'Set my profile status (About)', params: SessionPathParams, body: ProfileStatusRequest, response: changed },
    handler: async (request) => (await sessions.command(request.params.session, { op: 'profile.setStatus', args: request.body })) as Result,
  });

  r.put('/api/:session/profile/picture', {
    config: sessionAccess('use'),
    schema: {
      tags,
      summary: 'Set my profile picture',
      description: 'The image by `url` (the engine downloads it) or as base64 `data`.',
      params: SessionPathParams,
      body: ProfilePictureRequest,
      response: changed,
    },
    handler: async (request) => (await sessions.command(request.params.session, { op: 'profile.setPicture', args: request.body })) as Result,
  });

  r.delete('/api/:session/profile/picture', {
    config: sessionAccess('use'),
    schema: { tags, summary: 'Delete my profile picture', params: SessionPathParams, response: changed },
    handler: async (request) => (await sessions.command(request.params.session, { op: 'profile.deletePicture' })) as Result,
  });
}
