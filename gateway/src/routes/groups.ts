import {
  CountResponse,
  CreateGroupRequest,
  DescriptionRequest,
  type EngineCommand,
  GroupInfo,
  GroupParticipant,
  GroupParticipants,
  GroupPathParams,
  GroupPictureQuery,
  GroupPictureRequest,
  GroupPictureResponse,
  type GroupSecurity,
  type GroupSetting,
  GroupsListQuery,
  InviteLinkResponse,
  JoinGroupRequest,
  JoinGroupResponse,
  JoinInfoQuery,
  type ParticipantsAction,
  ParticipantsRequest,
  Result,
  SessionPathParams,
  SettingsSecurityChangeInfo,
  SubjectRequest,
} from '@switchboard/protocol';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { sessionAccess } from '../auth/access.js';
import type { RouteDeps } from './context.js';
import { typed } from './context.js';
import { sessionErrors } from './responses.js';

const tags = ['Groups'];

/** A group in a list: `exclude=participants` leaves its members out. */
const ListedGroup = GroupInfo.extend({ participants: GroupInfo.shape.participants.optional() }).meta({ id: 'ListedGroup' });

/** The peer's paths of the two security settings, and the setting each is. */
const SETTINGS: readonly (readonly [path: string, setting: GroupSetting, what: string])[] = [
  ['info-admin-only', 'infoAdminOnly', 'who may edit the group’s info (subject, description, picture)'],
  ['messages-admin-only', 'messagesAdminOnly', 'who may send messages'],
];

/** The peer's paths of the four participant changes. */
const CHANGES: readonly (readonly [path: string, action: ParticipantsAction, summary: string])[] = [
  ['participants/add', 'add', 'Add participants'],
  ['participants/remove', 'remove', 'Remove participants'],
  ['admin/promote', 'promote', 'Promote participants to admin users'],
  ['admin/demote', 'demote', 'Demote participants to regular users'],
];

/**
 * The peer's Groups operations (issue 16), with its paths, parameters and field names. Answers
 * carry spec 2.8's group record; the changes each makes reach clients as `group.v2.*` events.
 * Every operation needs the session WORKING.
 */
export async function groupRoutes(app: FastifyInstance, { sessions }: RouteDeps): Promise<void> {
  const r = typed(app);
  const changed = { 200: Result, ...sessionErrors };
  const command = <T>(session: string, engineCommand: EngineCommand) => sessions.command(session, engineCommand) as Promise<T>;

  r.post('/api/:session/groups', {
    config: sessionAccess('use'),
    schema: {
      tags,
      summary: 'Create a new group',
      description: 'You are its superadmin; `participants` are the other members. Its record answers, and `group.v2.join` goes out.',
      params: SessionPathParams,
      body: CreateGroupRequest,
      response: { 201: GroupInfo, ...sessionErrors },
    },
    handler: async (request, reply) =>
      reply.code(201).send(await command<GroupInfo>(request.params.session, { op: 'group.create', args: request.body })),
  });

  r.get('/api/:session/groups', {
    config: sessionAccess('use'),
    schema: {
      tags,
      summary: 'Get all groups',
      params: SessionPathParams,
      querystring: GroupsListQuery,
      response: { 200: z.array(ListedGroup), ...sessionErrors },
    },
    handler: async (request) => {
      const { sortBy, sortOrder, limit, offset, exclude } = request.query;
      let groups = await command<GroupInfo[]>(request.params.session, { op: 'group.list' });
      if (sortBy) {
        const direction = sortOrder === 'desc' ? -1 : 1;
        groups = [...groups].sort((a, b) => direction * a[sortBy].localeCompare(b[sortBy]));
      }
      const page = groups.slice(offset, limit ? offset + limit : undefined);
      return exclude.includes('participants') ? page.map(({ participants: _participants, ...group }) => group) : page;
    },
  });

  r.get('/api/:session/groups/count', {
    config: sessionAccess('use'),
    schema: { tags, summary: 'Get the number of groups', params: SessionPathParams, response: { 200: CountResponse, ...sessionErrors } },
    handler: async (request) => ({ count: (await command<GroupInfo[]>(request.params.session, { op: 'group.list' })).length }),
  });

  r.post('/api/:session/groups/refresh', {
    config: sessionAccess('use'),
    schema: { tags, summary: 'Refresh groups from the server', params: SessionPathParams, response: changed },
    handler: async (request) => command<Result>(request.params.session, { op: 'group.refresh' }),
  });

  r.get('/api/:session/groups/join-info', {
    config: sessionAccess('use'),
    schema: {
      tags,
      summary: 'Get info about the group before joining',
      params: SessionPathParams,
      querystring: JoinInfoQuery,
      response: { 200: GroupInfo, ...sessionErrors },
    },
    handler: async (request) => command<GroupInfo>(request.params.session, { op: 'group.joinInfo', args: request.query }),
  });

  r.post('/api/:session/groups/join', {
    config: sessionAccess('use'),
    schema: {
      tags,
      summary: 'Join group via code',
      description: 'By invite code or link; `group.v2.join` goes out. Joining a group you are in answers its id.',
      params: SessionPathParams,
      body: JoinGroupRequest,
      response: { 200: JoinGroupResponse, ...sessionErrors },
    },
    handler: async (request) => command<{ id: string }>(request.params.session, { op: 'group.join', args: request.body }),
  });

  r.get('/api/:session/groups/:id', {
    config: sessionAccess('use'),
    schema: { tags, summary: 'Get the group', params: GroupPathParams, response: { 200: GroupInfo, ...sessionErrors } },
    handler: async (request) => command<GroupInfo>(request.params.session, { op: 'group.get', args: { id: request.params.id } }),
  });

  r.delete('/api/:session/groups/:id', {
    config: sessionAccess('use'),
    schema: {
      tags,
      summary: 'Delete the group',
      description: 'Its superadmin removes every member and leaves.',
      params: GroupPathParams,
      response: changed,
    },
    handler: async (request) => command<Result>(request.params.session, { op: 'group.delete', args: { id: request.params.id } }),
  });

  r.post('/api/:session/groups/:id/leave', {
    config: sessionAccess('use'),
    schema: { tags, summary: 'Leave the group', params: GroupPathParams, response: changed },
    handler: async (request) => command<Result>(request.params.session, { op: 'group.leave', args: { id: request.params.id } }),
  });

  r.get('/api/:session/groups/:id/picture', {
    config: sessionAccess('use'),
    schema: {
      tags,
      summary: 'Get group picture',
      params: GroupPathParams,
      querystring: GroupPictureQuery,
      response: { 200: GroupPictureResponse, ...sessionErrors },
    },
    handler: async (request) =>
      command<GroupPictureResponse>(request.params.session, {
        op: 'group.picture',
        args: { id: request.params.id, refresh: request.query.refresh },
      }),
  });

  r.put('/api/:session/groups/:id/picture', {
    config: sessionAccess('use'),
    schema: {
      tags,
      summary: 'Set group picture',
      description: 'The image by `url` (the engine downloads it) or as base64 `data`.',
      params: GroupPathParams,
      body: GroupPictureRequest,
      response: changed,
    },
    handler: async (request) => command<Result>(request.params.session, { op: 'group.setPicture', args: { id: request.params.id, ...request.body } }),
  });

  r.delete('/api/:session/groups/:id/picture', {
    config: sessionAccess('use'),
    schema: { tags, summary: 'Delete group picture', params: GroupPathParams, response: changed },
    handler: async (request) => command<Result>(request.params.session, { op: 'group.deletePicture', args: { id: request.params.id } }),
  });

  r.put('/api/:session/groups/:id/description', {
    config: sessionAccess('use'),
    schema: { tags, summary: 'Updates the group description', params: GroupPathParams, body: DescriptionRequest, response: changed },
    handler: async (request) =>
      command<Result>(request.params.session, { op: 'group.setDescription', args: { id: request.params.id, ...request.body } }),
  });

  r.put('/api/:session/groups/:id/subject', {
    config: sessionAccess('use'),
    schema: { tags, summary: 'Updates the group subject', params: GroupPathParams, body: SubjectRequest, response: changed },
    handler: async (request) => command<Result>(request.params.session, { op: 'group.setSubject', args: { id: request.params.id, ...request.body } }),
  });

  for (const [path, setting, what] of SETTINGS) {
    r.get(`/api/:session/groups/:id/settings/security/${path}`, {
      config: sessionAccess('use'),
      schema: {
        tags,
        summary: `Get the group setting: ${what}`,
        params: GroupPathParams,
        response: { 200: SettingsSecurityChangeInfo, ...sessionErrors },
      },
      handler: async (request) => {
        const settings = await command<GroupSecurity>(request.params.session, { op: 'group.settings', args: { id: request.params.id } });
        return { adminsOnly: settings[setting] };
      },
    });

    r.put(`/api/:session/groups/:id/settings/security/${path}`, {
      config: sessionAccess('use'),
      schema: {
        tags,
        summary: `Update the group setting: ${what}`,
        description: 'Admins only.',
        params: GroupPathParams,
        body: SettingsSecurityChangeInfo,
        response: changed,
      },
      handler: async (request) =>
        command<Result>(request.params.session, {
          op: 'group.setSetting',
          args: { id: request.params.id, setting, adminsOnly: request.body.adminsOnly },
        }),
    });
  }

  r.get('/api/:session/groups/:id/invite-code', {
    config: sessionAccess('use'),
    schema: {
      tags,
      summary: 'Gets the invite link of the group',
      description: 'Admins only: `https://chat.whatsapp.com/<code>`, as a JSON string.',
      params: GroupPathParams,
      response: { 200: InviteLinkResponse, ...sessionErrors },
    },
    handler: async (request) => command<string>(request.params.session, { op: 'group.inviteCode', args: { id: request.params.id } }),
  });

  r.post('/api/:session/groups/:id/invite-code/revoke', {
    config: sessionAccess('use'),
    schema: {
      tags,
      summary: 'Invalidates the invite link and makes a new one',
      description: 'Admins only: the new link, as a JSON string.',
      params: GroupPathParams,
      response: { 200: InviteLinkResponse, ...sessionErrors },
    },
    handler: async (request) => command<string>(request.params.session, { op: 'group.revokeInvite', args: { id: request.params.id } }),
  });

  for (const path of ['participants', 'participants/v2']) {
    r.get(`/api/:session/groups/:id/${path}`, {
      config: sessionAccess('use'),
      schema: {
        tags,
        summary: path === 'participants' ? 'Get participants' : 'Get group participants',
        params: GroupPathParams,
        response: { 200: z.array(GroupParticipant), ...sessionErrors },
      },
      handler: async (request) =>
        (await command<GroupInfo>(request.params.session, { op: 'group.get', args: { id: request.params.id } })).participants,
    });
  }

  for (const [path, action, summary] of CHANGES) {
    r.post(`/api/:session/groups/:id/${path}`, {
      config: sessionAccess('use'),
      schema: {
        tags,
        summary,
        description: 'Admins only. Answers the members changed, each with its role now (`left` once removed); `group.v2.participants` goes out.',
        params: GroupPathParams,
        body: ParticipantsRequest,
        response: { 200: GroupParticipants, ...sessionErrors },
      },
      handler: async (request) =>
        command<GroupParticipant[]>(request.params.session, {
          op: 'group.participants',
          args: { id: request.params.id, action, participants: request.body.participants },
        }),
    });
  }
}
