import type { EngineOp } from '@switchboard/protocol';
import { resolveFile } from '../media/resolve-file.js';
import { acknowledge, capability, forward, type CommandHandlers } from './types.js';

export const groupHandlers: CommandHandlers<Extract<EngineOp, `group.${string}`>> = {
  'group.create': forward('createGroup', (command) => command.args),
  'group.list': forward('groups', () => false),
  'group.refresh': acknowledge('groups', () => true),
  'group.get': forward('group', (command) => command.args.id),
  'group.delete': acknowledge('deleteGroup', (command) => command.args.id),
  'group.leave': acknowledge('leaveGroup', (command) => command.args.id),
  'group.joinInfo': forward('groupJoinInfo', (command) => command.args.code),
  'group.join': async (engine, command, session) => ({
    id: await capability(engine, engine.joinGroup, command, session).call(engine, command.args.code),
  }),
  'group.picture': async (engine, command, session) => ({
    url: await capability(engine, engine.groupPicture, command, session).call(engine, command.args),
  }),
  'group.setPicture': async (engine, command, session, downloads) => {
    const setPicture = capability(engine, engine.setGroupPicture, command, session);
    await setPicture.call(engine, { id: command.args.id, file: await resolveFile(command.args.file, 'file', downloads) });
    return { success: true };
  },
  'group.deletePicture': acknowledge('deleteGroupPicture', (command) => command.args.id),
  'group.setSubject': acknowledge('setGroupSubject', (command) => command.args),
  'group.setDescription': acknowledge('setGroupDescription', (command) => command.args),
  'group.settings': forward('groupSettings', (command) => command.args.id),
  'group.setSetting': acknowledge('setGroupSetting', (command) => command.args),
  'group.inviteCode': forward('groupInviteCode', (command) => command.args.id),
  'group.revokeInvite': forward('revokeGroupInvite', (command) => command.args.id),
  'group.participants': forward('updateGroupParticipants', ({ args: { participants, ...args } }) => ({
    ...args,
    participants: participants.map((participant) => participant.id),
  })),
};
