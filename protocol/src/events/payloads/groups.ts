import { z } from 'zod';
import { GroupId, GroupInfo, GroupInfoUpdate, GroupParticipant } from '../../group.js';
import { rawData, unixSeconds } from './common.js';

const groupEventFields = { timestamp: unixSeconds(), _data: rawData() };

/** You joined or were added: the whole group, since you may not have seen it before. */
export const GroupV2JoinPayload = z.object({ group: GroupInfo, ...groupEventFields }).meta({ id: 'GroupV2JoinPayload' });
export type GroupV2JoinPayload = z.infer<typeof GroupV2JoinPayload>;

/** You left or were removed: the group can no longer be read, so only its id is sent. */
export const GroupV2LeavePayload = z.object({ group: GroupId, ...groupEventFields }).meta({ id: 'GroupV2LeavePayload' });
export type GroupV2LeavePayload = z.infer<typeof GroupV2LeavePayload>;

export const GroupParticipantsChange = z.enum(['join', 'leave', 'promote', 'demote']).meta({ id: 'GroupParticipantsChange' });
export type GroupParticipantsChange = z.infer<typeof GroupParticipantsChange>;

export const GroupV2ParticipantsPayload = z
  .object({
    type: GroupParticipantsChange,
    group: GroupId,
    participants: z.array(GroupParticipant).meta({ description: 'Only the members that changed' }),
    ...groupEventFields,
  })
  .meta({ id: 'GroupV2ParticipantsPayload' });
export type GroupV2ParticipantsPayload = z.infer<typeof GroupV2ParticipantsPayload>;

export const GroupV2UpdatePayload = z.object({ group: GroupInfoUpdate, ...groupEventFields }).meta({ id: 'GroupV2UpdatePayload' });
export type GroupV2UpdatePayload = z.infer<typeof GroupV2UpdatePayload>;

/*
 * The deprecated `group.join` and `group.leave` payloads are engine-specific (spec 6.2): no shape
 * is promised beyond being an object, so none is checked.
 */
const engineSpecific = (id: string, successor: string) =>
  z.record(z.string(), z.unknown()).meta({ id, description: `Engine-specific; superseded by \`${successor}\``, deprecated: true });

export const GroupJoinPayload = engineSpecific('GroupJoinPayload', 'group.v2.join');
export type GroupJoinPayload = z.infer<typeof GroupJoinPayload>;

export const GroupLeavePayload = engineSpecific('GroupLeavePayload', 'group.v2.leave');
export type GroupLeavePayload = z.infer<typeof GroupLeavePayload>;
