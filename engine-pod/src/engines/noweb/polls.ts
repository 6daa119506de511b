import { createHash, randomBytes } from 'node:crypto';
import { aesEncryptGCM, decryptPollVote, getKeyAuthor, hmacSign, jidNormalizedUser, proto, type WAMessage } from '@whiskeysockets/baileys';

export interface KnownPoll {
  readonly creatorJid: string;
  readonly secret: Uint8Array;
  /** Option name by the hex SHA-256 a vote carries. */
  readonly options: ReadonlyMap<string, string>;
  /** How many options a voter may choose; 0 is any number. */
  readonly selectable: number;
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
    const creatorJid = getKeyAuthor(msg.key, jidNormalizedUser(meJid));
    this.polls.set(msg.key.id, { creatorJid, secret, options, selectable: poll.selectableOptionsCount ?? 0 });
    if (this.polls.size > this.capacity) this.polls.delete(this.polls.keys().next().value!);
  }

  /** A poll this process saw (or sent), by its message id. */
  find(pollId: string): KnownPoll | undefined {
    return this.polls.get(pollId);
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

/**
 * A vote as WhatsApp clients encrypt it: AES-GCM under a key derived from the poll's secret, the
 * poll's id and creator and the voter, so only members who saw the poll can read it. The mirror
 * of the library's `decryptPollVote` (which has no encrypting half).
 */
export function encryptPollVote(
  selected: readonly string[],
  context: { pollMsgId: string; pollCreatorJid: string; voterJid: string; secret: Uint8Array },
): proto.Message.IPollEncValue {
  const vote = proto.Message.PollVoteMessage.encode({
    selectedOptions: selected.map((name) => createHash('sha256').update(name).digest()),
  }).finish();
  const sign = Buffer.concat([
    Buffer.from(context.pollMsgId),
    Buffer.from(context.pollCreatorJid),
    Buffer.from(context.voterJid),
    Buffer.from('Poll Vote'),
    new Uint8Array([1]),
  ]);
  const key = hmacSign(sign, hmacSign(context.secret, new Uint8Array(32), 'sha256'), 'sha256');
  const encIv = randomBytes(12);
  const aad = Buffer.from(`${context.pollMsgId}\u0000${context.voterJid}`);
  return { encPayload: aesEncryptGCM(vote, key, encIv, aad), encIv };
}
