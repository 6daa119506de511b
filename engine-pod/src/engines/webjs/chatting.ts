import type { MessageReactionPayload, MessageRecord, PollVotePayload, SendSeenResult } from '@switchboard/protocol';
import type { CommandArgs, OutgoingContacts, OutgoingMedia } from '../../capabilities/chatting.js';
import { CommandError, invalidField } from '../../command-error.js';
import { ECHO_WAIT_MS, findMessage, type WebjsDeps } from './deps.js';
import { messageRecord, pollVotePayload, reactionPayload } from './message-mapping.js';
import type { WebjsMessageHandle, WebjsSendOptions } from './webjs-client.js';
import { parseKey, recordId, wid } from './webjs-ids.js';

/** The fields every send has (protocol `sendFields`). */
interface SendTarget {
  readonly chatId: string;
  readonly id?: string | null | undefined;
  readonly reply_to?: string | null | undefined;
}

/**
 * Spec 4.5 on WEBJS: every send goes through `Client.sendMessage` with the library's content
 * classes (`MessageMedia`, `Location`, `Poll`, a vCard string), a reply as `quotedMessageId`;
 * actions on a message through the `Message` that `getMessageById` answers.
 */
export class WebjsChatting {
  constructor(private readonly deps: WebjsDeps) {}

  /** One send: the record (source `api`) once the library has it, `message.any` with it. */
  async send(target: SendTarget, content: string | object, options: WebjsSendOptions = {}): Promise<MessageRecord> {
    if (target.id) throw this.deps.notSupported('sending with a pre-generated message id (`id`): WhatsApp Web makes up its own');
    const client = this.deps.client();
    const all: WebjsSendOptions = { ...options, sendSeen: false, ...(target.reply_to ? { quotedMessageId: target.reply_to } : {}) };
    const record = await this.deps.gate
      .send(
        async () => {
          const sent = await client.sendMessage(target.chatId, content, all);
          return sent ? messageRecord(sent, 'api') : null;
        },
        (sent) => sent?.id ?? null,
        (sent) => this.deps.context.emit('message.any', sent!),
      )
      .catch(this.deps.engineError('send the message'));
    if (!record) throw new CommandError('NOT_FOUND', `WEBJS found no chat ${target.chatId}`, { chatId: target.chatId });
    return record;
  }

  async sendMedia(args: OutgoingMedia): Promise<MessageRecord> {
    if ('convert' in args && args.convert) {
      throw this.deps.notSupported(
        'converting files (`convert`): it sends them as they are; send OGG/Opus voice and MP4 (H.264/AAC) video with convert false',
      );
    }
    if (args.kind === 'video' && args.asNote) throw this.deps.notSupported('video notes (`asNote`): whatsapp-web.js sends videos only as videos');
    const { MessageMedia } = await this.deps.content();
    const { file } = args;
    const media = new MessageMedia(file.mimetype, file.data.toString('base64'), file.filename, file.data.length);
    const caption = 'caption' in args && args.caption ? { caption: args.caption } : {};
    if (args.kind === 'voice') return this.send(args, media, { sendAudioAsVoice: true });
    if (args.kind === 'file') return this.send(args, media, { ...caption, sendMediaAsDocument: true });
    return this.send(args, media, caption);
  }

  async sendLocation(args: CommandArgs<'send.location'>): Promise<MessageRecord> {
    const { Location } = await this.deps.content();
    return this.send(args, new Location(args.latitude, args.longitude, args.title ? { name: args.title } : {}));
  }

  async sendPoll(args: CommandArgs<'send.poll'>): Promise<MessageRecord> {
    const { Poll } = await this.deps.content();
    return this.send(args, new Poll(args.poll.name, args.poll.options, { allowMultipleAnswers: args.poll.multipleAnswers }));
  }

  /**
   * A `ScheduledEvent`: an invitation its members answer going, not going or maybe. `callType`
   * 'none': the library asks WhatsApp for a call link for any other value, unset included (a video
   * link), and the interface's events have no call.
   */
  async sendEvent(args: CommandArgs<'send.event'>): Promise<MessageRecord> {
    const { event } = args;
    if (event.extraGuestsAllowed)
      throw this.deps.notSupported('extra guests in event messages (`event.extraGuestsAllowed`): whatsapp-web.js cannot set it');
    const { ScheduledEvent } = await this.deps.content();
    const content = new ScheduledEvent(event.name, new Date(event.startTime * 1000), {
      ...(event.description ? { description: event.description } : {}),
      ...(event.endTime ? { endTime: new Date(event.endTime * 1000) } : {}),
      ...(event.location ? { location: event.location.name } : {}),
      callType: 'none',
    });
    return this.send(args, content);
  }

  /** A vCard as the text of the message: WhatsApp Web parses it into a contact card. */
  async sendContactVcard(args: OutgoingContacts): Promise<MessageRecord> {
    const [vcard, ...more] = args.vcards;
    if (more.length > 0) {
      throw this.deps.notSupported(
        'several contact cards in one message: whatsapp-web.js builds those only from contacts in the address book; send one card per request',
      );
    }
    return this.send(args, vcard!);
  }

  /** The library reports the copy only as `message_create`; it is waited for and answered as a send. */
  async forwardMessage(args: CommandArgs<'message.forward'>): Promise<MessageRecord> {
    if (args.id) throw this.deps.notSupported('sending with a pre-generated message id (`id`): WhatsApp Web makes up its own');
    const message = await this.message(args.messageId);
    const record = await this.deps.gate
      .send(
        async () => {
          const echo = this.deps.echoes.expect(
            'message_create',
            (copy) => copy.id.fromMe && wid(copy.id.remote) === args.chatId && Boolean(copy.isForwarded),
          );
          try {
            await message.forward(args.chatId);
          } catch (error) {
            echo.cancel();
            throw error;
          }
          const [copy] = await echo.within(ECHO_WAIT_MS, `the forwarded copy in ${args.chatId}`);
          return messageRecord(copy, 'api');
        },
        (sent) => sent.id,
        (sent) => this.deps.context.emit('message.any', sent),
      )
      .catch(this.deps.engineError(`forward ${args.messageId}`));
    return record;
  }

  /**
   * `Message.vote` with the options' names, checked against the poll; the library reports the
   * vote as `vote_update`, which is answered and emitted as `poll.vote`. None takes the vote back.
   */
  async sendPollVote(args: CommandArgs<'send.pollVote'>): Promise<PollVotePayload> {
    const poll = await this.message(args.pollMessageId);
    if (poll.type !== 'poll_creation') throw invalidField('pollMessageId', 'is not a poll');
    const options = new Set((poll.pollOptions ?? []).map((option) => option.name));
    const unknown = args.votes.find((vote) => !options.has(vote));
    if (unknown !== undefined) throw invalidField('votes', `"${unknown}" is not an option of the poll`);
    if (!poll.allowMultipleAnswers && args.votes.length > 1) throw invalidField('votes', 'the poll takes one answer');
    const me = this.deps.meId();
    // The vote as the browser records it: on this poll, these options (the voter may be the account's LID).
    const chosen = [...args.votes].sort().join('\n');
    const echo = this.deps.echoes.expect(
      'vote_update',
      (vote) =>
        recordId(vote.parentMsgKey) === args.pollMessageId &&
        vote.selectedOptions
          .map((option) => option.name ?? '')
          .sort()
          .join('\n') === chosen,
    );
    const [vote] = await poll
      .vote([...args.votes])
      .then(() => echo.within(ECHO_WAIT_MS, `the vote on ${args.pollMessageId}`))
      .catch((error: unknown) => {
        echo.cancel();
        return this.deps.engineError(`vote on ${args.pollMessageId}`)(error);
      });
    const payload = pollVotePayload(vote, me);
    this.deps.context.emit('poll.vote', payload);
    return payload;
  }

  /** `message.reaction` once the library reports the reaction (its own key is made in the browser). */
  async react(args: CommandArgs<'message.react'>): Promise<MessageReactionPayload> {
    const client = this.deps.client();
    const echo = this.deps.echoes.expect(
      'message_reaction',
      (reaction) => parseKey(reaction.id).fromMe && recordId(reaction.msgId) === args.messageId && (reaction.reaction ?? '') === args.reaction,
    );
    const [reaction] = await client
      .sendReaction(args.messageId, args.reaction)
      .then(() => echo.within(ECHO_WAIT_MS, `the reaction to ${args.messageId}`))
      .catch((error: unknown) => {
        echo.cancel();
        return this.deps.engineError(`react to ${args.messageId}`)(error);
      });
    const payload: MessageReactionPayload = { ...reactionPayload(reaction, this.deps.meId()), source: 'api' };
    this.deps.context.emit('message.reaction', payload);
    return payload;
  }

  async star(args: CommandArgs<'message.star'>): Promise<void> {
    const message = await this.message(args.messageId);
    await (args.star ? message.star() : message.unstar()).catch(this.deps.engineError(`${args.star ? 'star' : 'unstar'} ${args.messageId}`));
  }

  /** WhatsApp Web marks the whole chat read: the messages named are answered as read. */
  async sendSeen(args: CommandArgs<'chat.seen'>): Promise<SendSeenResult> {
    const named = [...new Set([...(args.messageIds ?? []), ...(args.messageId ? [args.messageId] : [])])];
    const found = await this.deps
      .client()
      .sendSeen(args.chatId)
      .catch(this.deps.engineError(`mark ${args.chatId} read`));
    if (!found) throw new CommandError('NOT_FOUND', `WEBJS found no chat ${args.chatId}`, { chatId: args.chatId });
    return { chatId: args.chatId, messageIds: named };
  }

  async setTyping(args: CommandArgs<'chat.typing'>): Promise<void> {
    const chat = await this.deps
      .client()
      .getChatById(args.chatId)
      .catch(this.deps.engineError(`find chat ${args.chatId}`));
    await (args.typing ? chat.sendStateTyping() : chat.clearState()).catch(this.deps.engineError(`update typing in ${args.chatId}`));
  }

  async editMessage(args: CommandArgs<'message.edit'>): Promise<void> {
    const message = await this.message(args.messageId);
    const edited = await message.edit(args.text, { linkPreview: args.linkPreview }).catch(this.deps.engineError(`edit ${args.messageId}`));
    if (!edited) {
      throw new CommandError(
        'INVALID',
        `WhatsApp Web will not edit ${args.messageId}: only your own text messages (and captions) can be edited, for 15 minutes`,
        {
          messageId: args.messageId,
        },
      );
    }
  }

  async deleteMessage(args: CommandArgs<'message.delete'>): Promise<void> {
    const message = await this.message(args.messageId);
    await message.delete(true).catch(this.deps.engineError(`delete ${args.messageId}`));
  }

  private message(id: string): Promise<WebjsMessageHandle> {
    return findMessage(this.deps, id);
  }
}
