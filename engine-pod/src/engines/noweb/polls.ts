import { createHash } from 'node:crypto';
import { decryptPollVote, getKeyAuthor, jidNormalizedUser, type proto, type WAMessage } from '@whiskeysockets/baileys';

interface KnownPoll {
  readonly creatorJid: string;
  readonly secret: Uint8Array;
  /** Option name by the hex SHA-256 a vote carries. */
  readonly options: ReadonlyMap<string, string>;
}

const sha256Hex = (value: Uint8Array | string) => createHash('sha256').update(value).digest('hex');

/**
 * Votes arrive encrypted with a key from the poll's own message, which the library no longer
 * keeps for us (its decryption in `processMessage` is commented out), so the engine remembers the
 * last polls it saw. A vote on a poll it never saw (sent before this process started) cannot be
 * read: that is `poll.vote.failed`.
 */
export class PollRegistry {
  private readonly polls = new Map<string, KnownPoll>();

  constructor(private readonly capacity = 500) {}

  remember(msg: WAMessage, content: proto.IMessage, meJid: string): void {
    const poll = content.pollCreationMessage ?? content.pollCreationMessageV2 ?? content.pollCreationMessageV3;
    const secret = content.messageContextInfo?.messageSecret;
    if (!poll || !secret || !msg.key.id) return;
    const options = new Map((poll.options ?? []).map((o) => [sha256Hex(o.optionName ?? ''), o.optionName ?? '']));
    this.polls.set(msg.key.id, { creatorJid: getKeyAuthor(msg.key, jidNormalizedUser(meJid)), secret, options });
    if (this.polls.size > this.capacity) this.polls.delete(this.polls.keys().next().value!);
  }

  /** The options chosen, or null when the poll is unknown or the vote does not decrypt. */
  read(vote: WAMessage, update: proto.Message.IPollUpdateMessage, meJid: string): string[] | null {
    const pollId = update.pollCreationMessageKey?.id;
    const poll = pollId ? this.polls.get(pollId) : undefined;
    if (!poll || !pollId || !update.vote) return null;
    try {
      const decrypted = decryptPollVote(update.vote, {
        pollCreatorJid: poll.creatorJid,
        pollMsgId: pollId,
        pollEncKey: poll.secret,
        voterJid: getKeyAuthor(vote.key, jidNormalizedUser(meJid)),
      });
      return (decrypted.selectedOptions ?? []).map((hash) => poll.options.get(Buffer.from(hash).toString('hex')) ?? '');
    } catch {
      return null;
    }
  }
}
