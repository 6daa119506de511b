import type { GroupInfo, GroupParticipant, GroupSecurity, ParticipantsAction } from '@switchboard/protocol';
import type makeWASocket from '@whiskeysockets/baileys';
import type { GroupMetadata } from '@whiskeysockets/baileys';
import type { CommandArgs } from '../../capabilities/chatting.js';
import type { GroupParticipantsArgs, GroupPictureArgs } from '../../capabilities/groups.js';
import { CommandError, invalidField, reasonOf } from '../../command-error.js';
import { toLibraryJid } from './jids.js';

type WASocket = ReturnType<typeof makeWASocket>;

const INVITE = 'https://chat.whatsapp.com/';

/** Answers the service gives for a picture it will not show: none set (404), hidden (401). */
const NO_PICTURE: ReadonlySet<unknown> = new Set([401, 404]);

export interface NowebGroupsDeps {
  /** The socket while WORKING, or a 422. */
  socket(): WASocket;
  /** Spec 2.8's record of the library's metadata, members in the interface's addressing. */
  groupInfo(metadata: GroupMetadata): Promise<GroupInfo>;
  /** A member in the interface's addressing. */
  contactId(jid: string, alt?: string | null): Promise<string>;
}

/** The role each change leaves a member in. */
const ROLE_AFTER: Record<ParticipantsAction, GroupParticipant['role']> = {
  add: 'participant',
  remove: 'left',
  promote: 'admin',
  demote: 'participant',
};

/**
 * The peer's Groups operations through Baileys' `w:g2` queries. What each change does to the
 * group comes back from the service as a `w:gp2` notification, which AccountEvents turns into
 * the `group.v2.*` events, as for changes made anywhere else. WhatsApp has no "delete a group":
 * NOWEB has no `deleteGroup` (422 from the catalog).
 */
export class NowebGroups {
  constructor(private readonly deps: NowebGroupsDeps) {}

  async create(args: CommandArgs<'group.create'>): Promise<GroupInfo> {
    const members = args.participants.map((participant) => toLibraryJid(participant.id));
    return this.deps.groupInfo(await this.ask('create the group', (socket) => socket.groupCreate(args.name, members)));
  }

  async list(): Promise<GroupInfo[]> {
    const groups = await this.ask('list the groups', (socket) => socket.groupFetchAllParticipating());
    return Promise.all(Object.values(groups).map((group) => this.deps.groupInfo(group)));
  }

  async get(id: string): Promise<GroupInfo> {
    return this.deps.groupInfo(await this.metadata(id));
  }

  async leave(id: string): Promise<void> {
    await this.metadata(id);
    await this.ask(`leave ${id}`, (socket) => socket.groupLeave(id));
  }

  async joinInfo(code: string): Promise<GroupInfo> {
    const group = await this.ask(`read invite ${code}`, (socket) => socket.groupGetInviteInfo(code));
    return this.deps.groupInfo({ ...group, inviteCode: code });
  }

  async join(code: string): Promise<string> {
    const id = await this.ask(`join by invite ${code}`, (socket) => socket.groupAcceptInvite(code));
    if (!id) throw new CommandError('ENGINE_ERROR', `the service named no group for invite ${code}`, { code });
    return id;
  }

  async picture(id: string): Promise<string | null> {
    await this.metadata(id);
    const url = await this.deps
      .socket()
      .profilePictureUrl(id, 'image')
      .catch((error: unknown) => {
        if (NO_PICTURE.has(statusOf(error))) return undefined;
        throw failed(`read the picture of ${id}`, error);
      });
    return url ?? null;
  }

  /** Baileys makes the 640x640 JPEG the service keeps (with sharp), whatever image it is given. */
  async setPicture(args: GroupPictureArgs): Promise<void> {
    await this.metadata(args.id);
    await this.ask(`set the picture of ${args.id}`, (socket) => socket.updateProfilePicture(args.id, args.file.data));
  }

  async deletePicture(id: string): Promise<void> {
    await this.metadata(id);
    await this.ask(`remove the picture of ${id}`, (socket) => socket.removeProfilePicture(id));
  }

  async setSubject(args: CommandArgs<'group.setSubject'>): Promise<void> {
    await this.ask(`change the subject of ${args.id}`, (socket) => socket.groupUpdateSubject(args.id, args.subject));
  }

  /** An empty description removes it. */
  async setDescription(args: CommandArgs<'group.setDescription'>): Promise<void> {
    await this.ask(`change the description of ${args.id}`, (socket) => socket.groupUpdateDescription(args.id, args.description || undefined));
  }

  async settings(id: string): Promise<GroupSecurity> {
    const group = await this.metadata(id);
    return { infoAdminOnly: !!group.restrict, messagesAdminOnly: !!group.announce };
  }

  async setSetting(args: CommandArgs<'group.setSetting'>): Promise<void> {
    const setting =
      args.setting === 'infoAdminOnly' ? (args.adminsOnly ? 'locked' : 'unlocked') : args.adminsOnly ? 'announcement' : 'not_announcement';
    await this.ask(`change the settings of ${args.id}`, (socket) => socket.groupSettingUpdate(args.id, setting));
  }

  async inviteCode(id: string): Promise<string> {
    const code = await this.ask(`read the invite of ${id}`, (socket) => socket.groupInviteCode(id));
    if (!code) throw new CommandError('ENGINE_ERROR', `the service gave no invite code for ${id}`, { id });
    return INVITE + code;
  }

  async revokeInvite(id: string): Promise<string> {
    const code = await this.ask(`revoke the invite of ${id}`, (socket) => socket.groupRevokeInvite(id));
    if (!code) throw new CommandError('ENGINE_ERROR', `the service gave no new invite code for ${id}`, { id });
    return INVITE + code;
  }

  /**
   * The service answers each member on its own: those it refused (not on WhatsApp, already in,
   * not a member ...) are a 400 naming them when none changed, and left out when some did.
   */
  async participants(args: GroupParticipantsArgs): Promise<GroupParticipant[]> {
    const jids = args.participants.map(toLibraryJid);
    const results = await this.ask(`${args.action} members of ${args.id}`, (socket) => socket.groupParticipantsUpdate(args.id, jids, args.action));
    const done = results.flatMap((result) => (result.status === '200' && result.jid ? [result.jid] : []));
    if (done.length === 0) {
      const refused = results.map((result) => `${result.jid ?? '?'}: ${result.status}`).join(', ');
      throw invalidField('participants', `the service refused every member (${refused || 'no answer'})`);
    }
    return Promise.all(done.map(async (jid) => ({ id: await this.deps.contactId(jid), role: ROLE_AFTER[args.action] })));
  }

  private metadata(id: string): Promise<GroupMetadata> {
    return this.ask(`read ${id}`, (socket) => socket.groupMetadata(id));
  }

  /** A query to the service; its refusals in the interface's terms. */
  private async ask<T>(doing: string, query: (socket: WASocket) => Promise<T>): Promise<T> {
    const socket = this.deps.socket();
    try {
      return await query(socket);
    } catch (error) {
      throw failed(doing, error);
    }
  }
}

/** The service's status code of a refusal (`Boom` from Baileys: `output.statusCode`, or the error node's `code`). */
function statusOf(error: unknown): number | undefined {
  const boom = error as { output?: { statusCode?: number }; data?: unknown } | null;
  if (typeof boom?.data === 'number') return boom.data;
  const code = (boom?.data as { attrs?: { code?: string } } | undefined)?.attrs?.code;
  return code ? Number(code) : boom?.output?.statusCode;
}

/** 404 (no such group, or you are not in it) and 403 (only admins may) are the user's to fix; the rest the engine's. */
function failed(doing: string, error: unknown): CommandError {
  if (error instanceof CommandError) return error;
  const status = statusOf(error);
  if (status === 404 || status === 406) return new CommandError('NOT_FOUND', `NOWEB could not ${doing}: the service knows no such group or invite`);
  if (status === 401 || status === 403)
    return new CommandError('WRONG_STATUS', `NOWEB could not ${doing}: the service allows it to admins only (${reasonOf(error)})`);
  return new CommandError('ENGINE_ERROR', `NOWEB could not ${doing}: ${reasonOf(error)}`);
}
