import { z } from 'zod';
import {
  CreateGroupRequest,
  DescriptionRequest,
  GroupChatId,
  GroupPictureRequest,
  GroupSetting,
  JoinGroupRequest,
  ParticipantsAction,
  ParticipantsRequest,
  SubjectRequest,
} from '../group-requests.js';
import { command } from './command.js';

const ofGroup = { id: GroupChatId };

/**
 * Engine commands of the peer's Groups operations (group-requests.ts). Reading one group serves
 * `GET /groups/{id}`, both participant lists and both settings reads (`group.get`,
 * `group.settings`); the list serves the count too.
 */
export const groupCommands = [
  command('group.create', CreateGroupRequest),
  command('group.list'),
  command('group.refresh'),
  command('group.get', z.object(ofGroup)),
  command('group.delete', z.object(ofGroup)),
  command('group.leave', z.object(ofGroup)),
  command('group.joinInfo', JoinGroupRequest),
  command('group.join', JoinGroupRequest),
  command('group.picture', z.object({ ...ofGroup, refresh: z.boolean() })),
  command('group.setPicture', GroupPictureRequest.extend(ofGroup)),
  command('group.deletePicture', z.object(ofGroup)),
  command('group.setSubject', SubjectRequest.extend(ofGroup)),
  command('group.setDescription', DescriptionRequest.extend(ofGroup)),
  command('group.settings', z.object(ofGroup)),
  command('group.setSetting', z.object({ ...ofGroup, setting: GroupSetting, adminsOnly: z.boolean() })),
  command('group.inviteCode', z.object(ofGroup)),
  command('group.revokeInvite', z.object(ofGroup)),
  command('group.participants', ParticipantsRequest.extend({ ...ofGroup, action: ParticipantsAction })),
] as const;
