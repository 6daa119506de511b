import { z } from 'zod';
import { EventResponseValue } from './events/payloads/interactions.js';
import { ChatId } from './ids.js';
import { AckName } from './message.js';
import { PresenceStatus } from './presence.js';

/*
 * Simulation kinds that make the events of spec 6.2 happen on a SANDBOX session (docs/sandbox.md
 * has each body and the events it produces). Kinds that act on an earlier message name it by its
 * full id (spec 2.5), which the session must know: one it sent or received.
 */

/** A group member: `<number>@c.us` or `<id>@lid`. */
const MemberId = z.string().regex(/^(\d{1,20}@c\.us|\d{1,24}@lid)$/, { message: 'must be "<number>@c.us" or "<id>@lid"' });

const GroupChatId = z.string().regex(/^[0-9A-Za-z-]{1,64}@g\.us$/, { message: 'must be "<id>@g.us"' });

/** A message id as the events carry it: `{fromMe}_{chatId}_{messageId}[_{participant}]`. */
// One "@" in each id, so that the parts cannot be split more than one way: linear matching.
const FullMessageId = z
  .string()
  .max(256, { abort: true })
  .regex(/^(true|false)_[^_\s@]+@[^_\s@]+_[0-9A-Za-z]+(_[^_\s@]+@[^_\s@]+)?$/, {
    message: 'must be a message id "{fromMe}_{chatId}_{messageId}[_{participant}]"',
  });

const ShortId = z.string().regex(/^[0-9A-Za-z]{1,64}$/, { message: 'must be 1-64 letters or digits' });

const LabelId = z.string().regex(/^\d{1,9}$/, { message: 'must be 1-9 digits' });

/** A field that these values of the others make necessary. */
function required(ctx: z.RefinementCtx, path: string, message: string): void {
  ctx.addIssue({ code: 'custom', path: [path], message });
}

/** Who acts in a group chat; ignored in direct chats, where the chat is the other person. */
export const actingMember = () => MemberId.optional().meta({ description: 'The group member who acts; default 15557770001@c.us' });

export const SimulateReaction = z.object({
  kind: z.literal('reaction'),
  messageId: FullMessageId,
  text: z.string().max(32).meta({ description: 'Emoji; "" removes the reaction' }),
  fromMe: z.boolean().default(false).meta({ description: 'You reacted, on the phone' }),
  participant: actingMember(),
});

export const SimulateAck = z.object({
  kind: z.literal('ack'),
  messageId: FullMessageId,
  ack: AckName.exclude(['PENDING']),
  participant: MemberId.optional().meta({
    description: 'A group member who received, read or played it: the group variant of message.ack',
  }),
});

export const SimulateWaiting = z.object({
  kind: z.literal('waiting'),
  from: ChatId,
  participant: actingMember(),
  id: ShortId.optional(),
});

export const SimulateEdit = z.object({
  kind: z.literal('edit'),
  messageId: FullMessageId,
  body: z.string().min(1).max(65536),
});

export const SimulateRevoke = z.object({
  kind: z.literal('revoke'),
  messageId: FullMessageId,
});

export const SimulateArchive = z.object({
  kind: z.literal('archive'),
  chatId: ChatId,
  archived: z.boolean().default(true),
});

const GroupSettings = z.object({
  subject: z.string().min(1).max(100),
  description: z.string().max(2048),
  membersCanAddNewMember: z.boolean(),
  membersCanSendMessages: z.boolean(),
  newMembersApprovalRequired: z.boolean(),
});

export const SimulateGroupJoin = z.object({
  kind: z.literal('group-join'),
  groupId: GroupChatId.optional().meta({ description: 'Default: a new group id' }),
  ...GroupSettings.partial().shape,
  participants: z.array(MemberId).max(256).default([]).meta({ description: 'The other members' }),
  by: MemberId.optional().meta({ description: 'The admin who added you; default 15557770001@c.us' }),
  role: z.enum(['participant', 'admin', 'superadmin']).default('participant').meta({ description: 'Your role in the group' }),
});

export const SimulateGroupLeave = z.object({
  kind: z.literal('group-leave'),
  groupId: GroupChatId,
  removed: z.boolean().default(false).meta({ description: 'An admin removed you (else you left)' }),
});

export const SimulateGroupParticipants = z.object({
  kind: z.literal('group-participants'),
  groupId: GroupChatId,
  type: z.enum(['join', 'leave', 'promote', 'demote']),
  participants: z.array(MemberId).min(1).max(256),
});

export const SimulateGroupUpdate = GroupSettings.partial()
  .extend({
    kind: z.literal('group-update'),
    groupId: GroupChatId,
    invite: z.boolean().optional().meta({ description: 'A new invite link' }),
  })
  .refine((update) => Object.keys(update).some((key) => key !== 'kind' && key !== 'groupId'), {
    message: 'must name at least one field that changes',
  });

export const SimulatePresence = z.object({
  kind: z.literal('presence'),
  chatId: ChatId,
  presence: PresenceStatus,
  participant: actingMember(),
  lastSeen: z.number().int().min(0).nullable().default(null).meta({ description: 'Unix seconds, or null' }),
});

export const SimulatePollVote = z.object({
  kind: z.literal('poll-vote'),
  pollId: FullMessageId,
  selectedOptions: z.array(z.string().min(1).max(256)).max(12).default([]),
  participant: actingMember(),
  failed: z.boolean().default(false).meta({ description: 'The vote cannot be decrypted: poll.vote.failed' }),
});

export const SimulateEventResponse = z.object({
  kind: z.literal('event-response'),
  eventId: FullMessageId,
  response: EventResponseValue.default('GOING'),
  extraGuestCount: z.literal([0, 1]).default(0),
  participant: actingMember(),
  failed: z.boolean().default(false).meta({ description: 'The response cannot be decrypted: event.response.failed' }),
});

export const SimulateLabel = z
  .object({
    kind: z.literal('label'),
    id: LabelId.optional().meta({ description: 'Default: a new label' }),
    name: z.string().min(1).max(100).optional(),
    color: z.number().int().min(0).max(19).default(0).meta({ description: 'Palette index, 0-19' }),
    deleted: z.boolean().default(false),
  })
  .superRefine((label, ctx) => {
    if (label.deleted && label.id === undefined) required(ctx, 'id', 'a deleted label needs its id');
    if (!label.deleted && label.name === undefined) required(ctx, 'name', 'a new or changed label needs a name');
  });

export const SimulateLabelChat = z.object({
  kind: z.literal('label-chat'),
  labelId: LabelId,
  chatId: ChatId,
  removed: z.boolean().default(false),
});

export const SimulateCall = z
  .object({
    kind: z.literal('call'),
    status: z
      .enum(['offer', 'accept', 'reject'])
      .default('offer')
      .meta({ description: 'offer: a call rings (call.received); accept or reject: it is answered on another device' }),
    from: MemberId.optional().meta({ description: 'The caller; needed for an offer' }),
    id: z
      .string()
      // WhatsApp's are upper-case hex; letters too, so a client's own test ids (the peer document's example) can ring.
      .regex(/^[0-9A-Za-z]{16,64}$/, { message: 'must be 16-64 letters or digits' })
      .optional()
      .meta({ description: 'The call id; default a new one for an offer, needed to accept or reject' }),
    isVideo: z.boolean().default(false),
    groupId: GroupChatId.optional().meta({ description: 'A group call in this group' }),
  })
  .superRefine((call, ctx) => {
    if (call.status === 'offer' && call.from === undefined) required(ctx, 'from', 'an offer needs the caller');
    if (call.status !== 'offer' && call.id === undefined) required(ctx, 'id', `${call.status} needs the id of a ringing call`);
  });

export const SimulateEngineEvent = z.object({
  kind: z.literal('engine-event'),
  event: z.string().min(1).max(128),
  data: z.record(z.string(), z.unknown()).default({}),
});

export const SimulateEngineState = z.object({
  kind: z.literal('engine-state'),
  state: z.string().regex(/^[A-Z_]{1,64}$/, { message: 'must be an upper-case state name, e.g. CONFLICT' }),
});

/** The kinds of this file, spread into SimulateRequest. */
export const eventSimulations = [
  SimulateReaction,
  SimulateAck,
  SimulateWaiting,
  SimulateEdit,
  SimulateRevoke,
  SimulateArchive,
  SimulateGroupJoin,
  SimulateGroupLeave,
  SimulateGroupParticipants,
  SimulateGroupUpdate,
  SimulatePresence,
  SimulatePollVote,
  SimulateEventResponse,
  SimulateLabel,
  SimulateLabelChat,
  SimulateCall,
  SimulateEngineEvent,
  SimulateEngineState,
] as const;
