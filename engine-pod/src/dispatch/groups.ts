import type { EngineOp } from '@switchboard/protocol';
import { resolveFile } from '../media/resolve-file.js';
import { capability, type CommandHandlers } from './types.js';

const success = { success: true } as const;

export const groupHandlers: CommandHandlers<Extract<EngineOp, `group.${string}`>> = {
  'group.create': async (engine, command, session) => capability(engine, engine.createGroup, command, session).call(engine, command.args),
  'group.list': async (engine, command, session) => capability(engine, engine.groups, command, session).call(engine, false),
  'group.refresh': async (engine, command, session) => {
    await capability(engine, engine.groups, command, session).call(engine, true);
    return success;
  },
  'group.get': async (engine, command, session) => capability(engine, engine.group, command, session).call(engine, command.args.id),
  'group.delete': async (engine, command, session) => {
    await capability(engine, engine.deleteGroup, command, session).call(engine, command.args.id);
    return success;
  },
  'group.leave': async (engine, command, session) => {
    await capability(engine, engine.leaveGroup, command, session).call(engine, command.args.id);
    return success;
  },
  'group.joinInfo': async (engine, command, session) => capability(engine, engine.groupJoinInfo, command, session).call(engine, command.args.code),
  'group.join': async (engine, command, session) => ({
    id: await capability(engine, engine.joinGroup, command, session).call(engine, command.args.code),
  }),
  'group.picture': async (engine, command, session) => ({
    url: await capability(engine, engine.groupPicture, command, session).call(engine, command.args),
  }),
  'group.setPicture': async (engine, command, session, downloads) => {
    const setPicture = capability(engine, engine.setGroupPicture, command, session);
    await setPicture.call(engine, { id: command.args.id, file: await resolveFile(command.args.file, 'file', downloads) });
    return success;
  },
  'group.deletePicture': async (engine, command, session) => {
    await capability(engine, engine.deleteGroupPicture, command, session).call(engine, command.args.id);
    return success;
  },
  'group.setSubject': async (engine, command, session) => {
    await capability(engine, engine.setGroupSubject, command, session).call(engine, command.args);
    return success;
  },
  'group.setDescription': async (engine, command, session) => {
    await capability(engine, engine.setGroupDescription, command, session).call(engine, command.args);
    return success;
  },
  'group.settings': async (engine, command, session) => capability(engine, engine.groupSettings, command, session).call(engine, command.args.id),
  'group.setSetting': async (engine, command, session) => {
    await capability(engine, engine.setGroupSetting, command, session).call(engine, command.args);
    return success;
  },
  'group.inviteCode': async (engine, command, session) => capability(engine, engine.groupInviteCode, command, session).call(engine, command.args.id),
  'group.revokeInvite': async (engine, command, session) =>
    capability(engine, engine.revokeGroupInvite, command, session).call(engine, command.args.id),
  'group.participants': async (engine, command, session) => {
    const { participants, ...args } = command.args;
    const update = capability(engine, engine.updateGroupParticipants, command, session);
    return update.call(engine, { ...args, participants: participants.map((participant) => participant.id) });
  },
};
