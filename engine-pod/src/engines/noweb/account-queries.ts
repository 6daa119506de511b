import type { MeInfo, MyProfile, WANumberExistResult } from '@switchboard/protocol';
import type makeWASocket from '@whiskeysockets/baileys';
import { generateMessageIDV2, jidNormalizedUser } from '@whiskeysockets/baileys';
import { CommandError } from '../../command-error.js';
import type { MediaFile } from '../../media/media-store.js';
import { toContactId } from './jids.js';
import { askService, serviceFailure } from './service-query.js';

type WASocket = ReturnType<typeof makeWASocket>;

/** Answers the service gives for a picture it will not show: none set (404), hidden (401). */
const NO_PICTURE: ReadonlySet<unknown> = new Set([401, 404]);

export interface AccountQueriesDeps {
  /** The connected socket, or a 422 when there is none. */
  socket(): WASocket;
  /** The account as the interface shows it, or null before pairing. */
  me(): MeInfo | null;
  /** The account's own JID as Baileys keeps it, or undefined before pairing. */
  meJid(): string | undefined;
}

/**
 * The account's profile (spec 4.4) and lookups (check-exists, message ids) through Baileys. The
 * name is app state (a `pushNameSetting` patch): Baileys then updates `me`, and the engine
 * reports it. The picture is the service's own address.
 */
export class AccountQueries {
  constructor(private readonly deps: AccountQueriesDeps) {}

  async profile(): Promise<MyProfile> {
    const me = this.requireMe();
    const picture = await this.deps
      .socket()
      .profilePictureUrl(this.ownJid(), 'image')
      .catch((error: unknown) => {
        if (NO_PICTURE.has((error as { data?: unknown } | null)?.data)) return undefined;
        throw serviceFailure('read the profile picture', error);
      });
    return { id: me.id, name: me.pushName, picture: picture ?? null };
  }

  async setName(name: string): Promise<void> {
    await this.ask('set the profile name', (socket) => socket.updateProfileName(name));
  }

  async setStatus(status: string): Promise<void> {
    await this.ask('set the profile status', (socket) => socket.updateProfileStatus(status));
  }

  /** Baileys makes the 640x640 JPEG the service keeps (with sharp), whatever image it is given. */
  async setPicture(picture: MediaFile): Promise<void> {
    await this.ask('set the profile picture', (socket) => socket.updateProfilePicture(this.ownJid(), picture.data));
  }

  async deletePicture(): Promise<void> {
    await this.ask('remove the profile picture', (socket) => socket.removeProfilePicture(this.ownJid()));
  }

  async checkNumber(phone: string): Promise<WANumberExistResult> {
    const found = await this.ask(`check ${phone}`, (socket) => socket.onWhatsApp(phone));
    const account = found?.find((result) => result.exists);
    return account ? { numberExists: true, chatId: toContactId(account.jid) } : { numberExists: false };
  }

  /** In the service's own form (`3EB0...`), as Baileys makes them for its sends. */
  newMessageId(): string {
    return generateMessageIDV2(this.deps.meJid());
  }

  /** A query to the service; its failure is an ENGINE_ERROR saying what was being done. */
  private async ask<T>(doing: string, query: (socket: WASocket) => Promise<T>): Promise<T> {
    return askService(() => this.deps.socket(), doing, query);
  }

  private requireMe(): MeInfo {
    const me = this.deps.me();
    if (!me) throw new CommandError('WRONG_STATUS', 'the session is not paired');
    return me;
  }

  private ownJid(): string {
    const jid = this.deps.meJid();
    if (!jid) throw new CommandError('WRONG_STATUS', 'the session is not paired');
    return jidNormalizedUser(jid);
  }
}
