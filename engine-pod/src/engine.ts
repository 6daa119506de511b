import type {
  EngineLibraryVersions,
  EngineName,
  EngineSettings,
  EventName,
  Media,
  MeInfo,
  MessageRecord,
  MessageTextRequest,
  RequestCodeRequest,
  SessionStatus,
  SimulateRequest,
} from '@switchboard/protocol';
import type { AuthStateStore } from './auth-state/store.js';
import type { ChatsCapability, PresenceCapability } from './capabilities/chats.js';
import type { ChattingCapability } from './capabilities/chatting.js';
import type { GroupManagement } from './capabilities/groups.js';
import type { PasskeyPairing } from './capabilities/pairing.js';
import type { ProfileEditing } from './capabilities/profile.js';
import type { AccountLookups } from './capabilities/account.js';
import type { ContactsCapability, LabelsCapability } from './capabilities/contacts.js';
import type { ChannelsCapability } from './capabilities/channels.js';
import type { StatusCapability } from './capabilities/stories.js';
import type { MediaFile, MediaFileInfo } from './media/media-store.js';

/** What the host gives an engine: where to report, where to keep its auth state. */
export interface EngineContext {
  readonly session: string;
  /**
   * The session's engine settings (proxy, ignore, client, noweb), as they were when it started.
   * The gateway refuses a setting an engine cannot honour (protocol's engine-catalog.ts).
   */
  readonly settings: EngineSettings;
  readonly authState: AuthStateStore;
  /**
   * Report a status change. Repeating SCAN_QR_CODE is how a renewed QR is announced. A FAILED
   * status says why in `reason`, which `session.status` carries to the client; so may a STARTING
   * that reconnects for a reason the client should know (a silent connection).
   */
  setStatus(status: SessionStatus, reason?: string): void;
  /** The authenticated account, or null after logout. */
  setMe(me: MeInfo | null): void;
  /**
   * What the engine runs: its library and version, and the client version it presents to the
   * service. Reported at each start, once known (the session's `versions`, issue 31).
   */
  setVersions(versions: EngineLibraryVersions): void;
  /** A normalized event; the host wraps it in the envelope of spec 2.4. */
  emit(event: EventName, payload: Record<string, unknown>): void;
  readonly log: EngineLog;
  /**
   * Keeps a file (received media, or media the account sent) where clients can download it, and
   * gives the `media` object of the message record (spec 2.5). Null when this host has no media
   * store (some unit tests); engines then send `media: null`.
   */
  saveMedia(file: MediaFile): Promise<Media | null>;
  /**
   * Keeps a file as its bytes arrive (a download), never holding it whole. When `data` throws,
   * nothing is kept and the error goes on. Null when this host has no media store.
   */
  saveMediaStream(file: MediaFileInfo, data: AsyncIterable<Uint8Array>): Promise<Media | null>;
  /**
   * The largest received file kept (`SWITCHBOARD_MEDIA_MAX_BYTES`): engines skip a download that
   * declares more and cut one that turns out larger (`limitedTo`, media-limit.ts).
   */
  readonly mediaMaxBytes: number;
}

export interface EngineLog {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export type SendTextArgs = Omit<MessageTextRequest, 'session'>;

/**
 * One session's connection to one messaging account. Engines only talk to their messaging
 * service and report through the context; status bookkeeping, envelopes and the command
 * contract live in the EngineHost, the same for every engine.
 */
export interface Engine
  extends
    PasskeyPairing,
    ChattingCapability,
    ProfileEditing,
    AccountLookups,
    GroupManagement,
    ChatsCapability,
    PresenceCapability,
    ContactsCapability,
    LabelsCapability,
    ChannelsCapability,
    StatusCapability {
  readonly name: EngineName;
  start(): Promise<void>;
  /** Close the connection, keep the auth state. */
  stop(): Promise<void>;
  /** Unpair: the auth state is cleared. Called on a stopped engine too. */
  logout(): Promise<void>;
  /** The current QR value; only while SCAN_QR_CODE. */
  qr(): string;
  requestCode(request: RequestCodeRequest): Promise<{ code: string }>;
  sendText(args: SendTextArgs): Promise<MessageRecord>;
  /**
   * Declines an incoming call (the calls app, spec 2.3). The engine then emits `call.rejected`
   * with the fields of the call's `call.received`.
   */
  rejectCall?(call: { readonly id: string; readonly from: string }): Promise<void>;
  /** Browser engines: a PNG of what the browser's page shows now. */
  screenshot?(): Promise<MediaFile>;
  /** SANDBOX only: play the other side. */
  simulate?(request: SimulateRequest): Promise<Record<string, unknown>>;
}

export type EngineFactory = (context: EngineContext) => Engine;
