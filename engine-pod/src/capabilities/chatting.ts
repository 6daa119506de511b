import type { EngineCommand, MessageReactionPayload, MessageRecord, PollVotePayload, SendSeenResult } from '@switchboard/protocol';
import type { MediaFile } from '../media/media-store.js';

/** The arguments of an engine command, as the host hands them to the engine. */
export type CommandArgs<Op extends EngineCommand['op']> = Extract<EngineCommand, { op: Op; args: unknown }>['args'];

/** A send whose file was downloaded or decoded by the host (media/resolve-file.ts). */
export type OutgoingMedia =
  CommandArgs<'send.media'> extends infer A ? (A extends { file: unknown } ? Omit<A, 'file'> & { readonly file: MediaFile } : never) : never;

type PreviewArgs = CommandArgs<'send.linkCustomPreview'>;
export type OutgoingLinkPreview = Omit<PreviewArgs, 'preview'> & {
  readonly preview: Omit<PreviewArgs['preview'], 'image'> & { readonly image: MediaFile | null };
};

export type OutgoingButtons = Omit<CommandArgs<'send.buttons'>, 'headerImage'> & { readonly headerImage: MediaFile | null };

/** Contact cards as vCard text, built from the request's fields where it gave no vCard. */
export type OutgoingContacts = Omit<CommandArgs<'send.contactVcard'>, 'contacts'> & { readonly vcards: readonly string[] };

/** `replyTo` (the reference's name) and `reply_to` are one field by the time an engine sees it. */
export type OutgoingButtonReply = Omit<CommandArgs<'send.buttonReply'>, 'replyTo'>;

/**
 * Spec 4.5 beyond text, for engines whose messaging service can do it. Each method is optional:
 * an engine without it answers 422 NOT_SUPPORTED naming itself (dispatch/chatting.ts). Sends
 * answer the message record of spec 2.5 and emit `message.any` (source `api`) and then
 * `message.ack` as the acknowledgement advances, as `sendText` does.
 */
export interface ChattingCapability {
  /** Image, file (document), voice note or video, by `kind`. */
  sendMedia?(args: OutgoingMedia): Promise<MessageRecord>;
  sendLinkCustomPreview?(args: OutgoingLinkPreview): Promise<MessageRecord>;
  sendButtons?(args: OutgoingButtons): Promise<MessageRecord>;
  sendList?(args: CommandArgs<'send.list'>): Promise<MessageRecord>;
  sendPoll?(args: CommandArgs<'send.poll'>): Promise<MessageRecord>;
  /** Emits `poll.vote` for the account's own vote. */
  sendPollVote?(args: CommandArgs<'send.pollVote'>): Promise<PollVotePayload>;
  sendLocation?(args: CommandArgs<'send.location'>): Promise<MessageRecord>;
  sendContactVcard?(args: OutgoingContacts): Promise<MessageRecord>;
  sendButtonReply?(args: OutgoingButtonReply): Promise<MessageRecord>;
  forwardMessage?(args: CommandArgs<'message.forward'>): Promise<MessageRecord>;
  /** Emits `message.reaction` (spec 6.2: your own reactions too). */
  react?(args: CommandArgs<'message.react'>): Promise<MessageReactionPayload>;
  star?(args: CommandArgs<'message.star'>): Promise<void>;
  /** Read receipts for a chat's messages. */
  sendSeen?(args: CommandArgs<'chat.seen'>): Promise<SendSeenResult>;
  /** Shows or clears "typing..." in a chat. */
  setTyping?(args: CommandArgs<'chat.typing'>): Promise<void>;
}
