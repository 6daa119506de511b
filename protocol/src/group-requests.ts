import { z } from 'zod';
import { GroupParticipant } from './group.js';
import { SessionName } from './ids.js';
import { ProfilePictureRequest } from './profile.js';
import { QueryBoolean } from './session.js';

/*
 * The group operations of the peer's document (its Groups tag), with its paths, parameters and
 * field names: `GET /api/{session}/groups`, `/groups/{id}/participants/add`, ... The answers
 * carry spec 2.8's group record (group.ts), as the `group.v2.*` events do.
 */

/** A group id, `<id>@g.us`, as spec part 1 writes it. */
export const GroupChatId = z
  .string()
  .regex(/^[0-9A-Za-z-]{1,64}@g\.us$/, { message: 'must be a group id, "<id>@g.us"' })
  .meta({ description: 'Group id', examples: ['123123123@g.us'] });

export const GroupPathParams = z.object({ session: SessionName, id: GroupChatId });

/** A member to add, remove, promote or demote: `<number>@c.us` or `<id>@lid`. */
export const GroupMemberRef = z
  .object({
    id: z
      .string()
      .regex(/^(\d{1,20}@c\.us|\d{1,24}@lid)$/, { message: 'must be "<number>@c.us" or "<id>@lid"' })
      .meta({ examples: ['123456789@c.us'] }),
  })
  .meta({ id: 'GroupMemberRef' });

/** WhatsApp's own limits: a subject of up to 100 characters, a description of up to 2048, 1024 members. */
const Subject = z.string().trim().min(1).max(100);
const Members = z.array(GroupMemberRef).max(1024);

export const CreateGroupRequest = z
  .object({
    name: Subject.meta({ description: 'The subject (group name)', examples: ['Project team'] }),
    participants: Members.meta({ description: 'Members besides you (you are its superadmin)' }),
  })
  .meta({ id: 'CreateGroupRequest' });
export type CreateGroupRequest = z.infer<typeof CreateGroupRequest>;

/** `GET /api/{session}/groups`: the peer's query; the gateway sorts and pages what the engine lists. */
export const GroupsListQuery = z.object({
  sortBy: z.enum(['id', 'subject']).optional().meta({ description: 'Sort by field (default: as the engine lists them)' }),
  sortOrder: z.enum(['desc', 'asc']).default('asc').meta({ description: '`asc` (A => Z, default) or `desc` (Z => A)' }),
  limit: z.coerce
    .number()
    .int()
    .min(0)
    .optional()
    .meta({ description: 'How many groups; 0 or none: all (0 is what the peer’s n8n node sends by default)' }),
  offset: z.coerce.number().int().min(0).default(0).meta({ description: 'How many groups to skip: default 0' }),
  exclude: z
    .union([z.enum(['', 'participants']), z.array(z.enum(['', 'participants']))])
    .optional()
    .transform((value) => (value === undefined ? [] : Array.isArray(value) ? value : [value]))
    .meta({ description: '`participants`: leave each group’s participants out' }),
});
export type GroupsListQuery = z.infer<typeof GroupsListQuery>;

const INVITE_PREFIX = /^https?:\/\/chat\.whatsapp\.com\//;

/** An invite code, or the link it is the end of: the code alone goes on. */
const InviteCode = z
  .string()
  .trim()
  .transform((value) => value.replace(INVITE_PREFIX, ''))
  .pipe(z.string().regex(/^[0-9A-Za-z]{1,64}$/, { message: 'must be an invite code or link, "https://chat.whatsapp.com/<code>"' }))
  .meta({ description: 'Group code (123) or url (https://chat.whatsapp.com/123)', examples: ['https://chat.whatsapp.com/1234567890abcdef'] });

export const JoinInfoQuery = z.object({ code: InviteCode });
export const JoinGroupRequest = z.object({ code: InviteCode }).meta({ id: 'JoinGroupRequest' });
export type JoinGroupRequest = z.infer<typeof JoinGroupRequest>;

export const JoinGroupResponse = z.object({ id: GroupChatId }).meta({ id: 'JoinGroupResponse' });

export const CountResponse = z.object({ count: z.number().int() }).meta({ id: 'CountResponse' });

export const GroupPictureQuery = z.object({
  refresh: QueryBoolean.default(false).meta({ description: 'Ask the service again rather than the engine’s copy' }),
});

/** Null `url`: the group has no picture. */
export const GroupPictureResponse = z
  .object({ url: z.string().nullable().meta({ description: 'Where the picture can be downloaded; null when there is none' }) })
  .meta({ id: 'GroupPictureResponse' });
export type GroupPictureResponse = z.infer<typeof GroupPictureResponse>;

export const GroupPictureRequest = ProfilePictureRequest;

export const SubjectRequest = z.object({ subject: Subject.meta({ examples: ['Project team'] }) }).meta({ id: 'SubjectRequest' });
export const DescriptionRequest = z
  .object({ description: z.string().max(2048).meta({ description: 'Empty: no description' }) })
  .meta({ id: 'DescriptionRequest' });

/** Both security settings of the peer: who may edit the group's info, who may send messages. */
export const SettingsSecurityChangeInfo = z
  .object({ adminsOnly: z.boolean().meta({ description: 'Only admins may (true) or every member (false)' }) })
  .meta({ id: 'SettingsSecurityChangeInfo' });

export const GroupSetting = z.enum(['infoAdminOnly', 'messagesAdminOnly']);
export type GroupSetting = z.infer<typeof GroupSetting>;

/** What `group.settings` answers: both settings at once. */
export type GroupSecurity = Readonly<Record<GroupSetting, boolean>>;

export const ParticipantsRequest = z
  .object({ participants: Members.min(1).meta({ description: 'The members (at least one)' }) })
  .meta({ id: 'ParticipantsRequest' });
export type ParticipantsRequest = z.infer<typeof ParticipantsRequest>;

/** What a participants change does to each member named. */
export const ParticipantsAction = z.enum(['add', 'remove', 'promote', 'demote']);
export type ParticipantsAction = z.infer<typeof ParticipantsAction>;

/** The members a participants change touched, with the role each has now (`left` once removed). */
export const GroupParticipants = z.array(GroupParticipant).meta({ id: 'GroupParticipants' });

/** The invite link (`https://chat.whatsapp.com/<code>`), a JSON string as the peer answers it. */
export const InviteLinkResponse = z.string().meta({ examples: ['https://chat.whatsapp.com/1234567890abcdef'] });
