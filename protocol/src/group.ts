import { z } from 'zod';

/** Spec 2.8: `left` is kept so a removal can still name the member's last role. */
export const GroupParticipantRole = z.enum(['left', 'participant', 'admin', 'superadmin']).meta({ id: 'GroupParticipantRole' });
export type GroupParticipantRole = z.infer<typeof GroupParticipantRole>;

export const GroupParticipant = z
  .object({
    id: z.string().meta({ description: 'Member id, `<number>@c.us` or `<id>@lid`', examples: ['123456789@lid'] }),
    role: GroupParticipantRole,
  })
  .meta({ id: 'GroupParticipant' });
export type GroupParticipant = z.infer<typeof GroupParticipant>;

const groupId = z.string().meta({ description: 'Group id, `<id>@g.us`', examples: ['123456789@g.us'] });

/** Only the id: what `group.v2.leave` and `group.v2.participants` carry. */
export const GroupId = z.object({ id: groupId }).meta({ id: 'GroupId' });
export type GroupId = z.infer<typeof GroupId>;

/**
 * Spec 2.8. `invite` is optional because only admins can read a group's invite link; the
 * reference document leaves it out of its required fields for the same reason.
 */
export const GroupInfo = z
  .object({
    id: groupId,
    subject: z.string().meta({ description: 'Group name' }),
    description: z.string(),
    invite: z
      .string()
      .optional()
      .meta({ description: 'Invite link', examples: ['https://chat.whatsapp.com/1234567890abcdef'] }),
    membersCanAddNewMember: z.boolean(),
    membersCanSendMessages: z.boolean(),
    newMembersApprovalRequired: z.boolean().meta({ description: 'Admins approve new members' }),
    participants: z.array(GroupParticipant),
  })
  .meta({ id: 'GroupInfo' });
export type GroupInfo = z.infer<typeof GroupInfo>;

/** The id plus whichever fields changed (spec 6.2 `group.v2.update`; some engines send all). */
export const GroupInfoUpdate = GroupInfo.partial().extend({ id: groupId }).meta({ id: 'GroupInfoUpdate' });
export type GroupInfoUpdate = z.infer<typeof GroupInfoUpdate>;
