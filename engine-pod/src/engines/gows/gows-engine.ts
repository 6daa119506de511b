import {
  CommandErrorCode,
  ENGINE_CATALOG,
  EngineLibraryVersions,
  EventName,
  MeInfo,
  MessageRecord,
  type RequestCodeRequest,
  SessionStatus,
  SILENCE_TIMEOUT_VARIABLE,
  type MessageRecord as MessageRecordType,
} from '@switchboard/protocol';
import { JSONRPCErrorCode, JSONRPCErrorException } from 'json-rpc-2.0';
import { z } from 'zod';
import { CommandError, reasonOf } from '../../command-error.js';
import { currentQr, refuseNumberRegistration } from '../../capabilities/pairing.js';
import { METHOD_OF } from '../../dispatch/support.js';
import type { Engine, EngineContext, EngineFactory, SendTextArgs } from '../../engine.js';
import { MEDIA_MAX_BYTES_VARIABLE } from '../../media/media-limit.js';
import { describeExit, EngineProcess, type ProcessExit } from './engine-process.js';
import { FORWARDED_METHODS, type ForwardedMethod, isForwarded, wireParams } from './forwarded-methods.js';
import { MediaSpool, SPOOL_VARIABLE } from './media-spool.js';
import { CLIENT_VERSION_VARIABLE, type GowsOptions, gowsBinaryProblem } from './options.js';

const Capabilities = z.object({ methods: z.array(z.string()) });

const StatusNotice = z.object({ status: SessionStatus, reason: z.string().optional() });
const MeNotice = z.object({ me: MeInfo.nullable() });
const EventNotice = z.object({ event: EventName, payload: z.record(z.string(), z.unknown()) });
const AuthGet = z.object({ type: z.string(), ids: z.array(z.string()) });
const AuthSet = z.object({ data: z.record(z.string(), z.record(z.string(), z.unknown())) });
const MediaSave = z.object({ mimetype: z.string(), filename: z.string().nullish(), path: z.string().min(1) });
/** The fields an INVALID names, each with its reason. */
const FieldIssues = z.array(z.object({ path: z.string(), reason: z.string() })).min(1);

/** The error data of a refusal: one of the protocol's CommandError codes, which the Go engine speaks too (hostapi.Code). */
const RpcErrorData = z.object({
  code: CommandErrorCode,
  details: z.record(z.string(), z.unknown()).optional(),
});
const CodeResult = z.object({ code: z.string() });

/**
 * GOWS in local mode: the Engine the EngineHost drives is this proxy, and the engine itself is a
 * `switchboard-gows stdio` child process per session (whatsmeow, in Go), spoken to over the engine
 * RPC (engines/gows/PROTOCOL.md). One process per session, like one pod per session in cluster
 * mode: a crash takes one session down, which then reports FAILED and can be started again.
 *
 * It has the optional Engine methods the engine catalog gives GOWS, and once the child has said
 * which it implements (`capabilities`), only those of them.
 */
export class GowsEngine implements Engine {
  readonly name = 'GOWS' as const;
  private process: EngineProcess | null = null;
  private qrValue: string | null = null;
  /** Notifications are handled one after the other, in the order the child sent them. */
  private notices: Promise<void> = Promise.resolve();
  private readonly exposed = new Set<ForwardedMethod>();

  constructor(
    private readonly context: EngineContext,
    private readonly options: GowsOptions,
    methods: readonly ForwardedMethod[],
  ) {
    for (const method of methods) this.expose(method);
  }

  async start(): Promise<void> {
    if (this.process?.running) return;
    const problem = gowsBinaryProblem(this.options);
    if (problem) throw new Error(problem);
    const child = this.spawn();
    this.process = child;
    try {
      const { methods } = Capabilities.parse(await child.request('capabilities', {}));
      this.keepOnly(methods);
      await this.call('start', { session: this.context.session, settings: this.context.settings });
    } catch (error) {
      await this.close(child);
      throw error;
    }
  }

  async stop(): Promise<void> {
    const child = this.process;
    if (!child) return;
    await this.ask(child, 'stop');
    await this.close(child);
  }

  async logout(): Promise<void> {
    const child = this.process;
    if (child?.running) {
      // The engine unlinks the device and clears its auth state through auth.clear.
      await this.ask(child, 'logout');
      await this.close(child);
    } else {
      this.process = null;
      await this.context.authState.clear();
    }
    this.qrValue = null;
    this.context.setMe(null);
  }

  qr(): string {
    return currentQr(this.context.session, this.qrValue);
  }

  async requestCode(request: RequestCodeRequest): Promise<{ code: string }> {
    refuseNumberRegistration(this.name, this.context.session, request);
    return this.checked('requestCode', CodeResult, await this.call('requestCode', request));
  }

  async sendText(args: SendTextArgs): Promise<MessageRecordType> {
    return this.checked('sendText', MessageRecord, await this.call('sendText', args));
  }

  private expose(method: ForwardedMethod): void {
    this.exposed.add(method);
    const forward = async (...args: unknown[]) =>
      this.checked(method, FORWARDED_METHODS[method].result, await this.call(method, wireParams(method, args)));
    Object.defineProperty(this, method, { value: forward, configurable: true, enumerable: false, writable: false });
  }

  /** The catalog and the binary should agree; where they do not, the host answers NOT_SUPPORTED. */
  private keepOnly(methods: readonly string[]): void {
    const missing = [...this.exposed].filter((method) => !methods.includes(method));
    for (const method of missing) {
      this.exposed.delete(method);
      Reflect.deleteProperty(this, method);
    }
    const unlisted = methods.filter((method) => isForwarded(method) && !this.exposed.has(method));
    if (missing.length > 0 || unlisted.length > 0) {
      this.context.log.warn(
        { session: this.context.session, missing, unlisted },
        'the GOWS binary and the engine catalog disagree on what it can do; only what both list is offered',
      );
    }
  }

  private spawn(): EngineProcess {
    const session = this.context.session;
    const spool = new MediaSpool();
    const child: EngineProcess = new EngineProcess(
      {
        command: this.options.command,
        env: {
          SWITCHBOARD_SESSION: session,
          ...(this.options.wsUrl ? { SWITCHBOARD_GOWS_WS_URL: this.options.wsUrl } : {}),
          ...(this.options.certRootPubkey ? { SWITCHBOARD_GOWS_CERT_ROOT_PUBKEY: this.options.certRootPubkey } : {}),
          ...(this.options.mediaHost ? { SWITCHBOARD_GOWS_MEDIA_HOST: this.options.mediaHost } : {}),
          ...(this.options.mediaCa ? { SWITCHBOARD_GOWS_MEDIA_CA: this.options.mediaCa } : {}),
          // The session's own (config.clientVersion) goes in start's settings and wins over this.
          ...(this.options.clientVersion ? { [CLIENT_VERSION_VARIABLE]: this.options.clientVersion } : {}),
          ...(this.options.silenceTimeoutMs ? { [SILENCE_TIMEOUT_VARIABLE]: String(this.options.silenceTimeoutMs) } : {}),
          [SPOOL_VARIABLE]: spool.dir,
          [MEDIA_MAX_BYTES_VARIABLE]: String(this.context.mediaMaxBytes),
        },
        log: this.context.log,
        logFields: { session, engine: this.name },
        ...(this.options.maxLineLength === undefined ? {} : { maxLineLength: this.options.maxLineLength }),
        onExit: (exit) => {
          spool.remove();
          this.exited(child, exit);
        },
      },
      {
        status: (params) => this.notice(() => this.status(params)),
        me: (params) => this.notice(() => this.context.setMe(MeNotice.parse(params).me)),
        // Sent by start before it connects: whatsmeow's version and the client version presented.
        versions: (params) => this.notice(() => this.context.setVersions(EngineLibraryVersions.parse(params))),
        event: (params) =>
          this.notice(() => {
            const { event, payload } = EventNotice.parse(params);
            this.context.emit(event, payload);
          }),
        'auth.get': (params) => {
          const { type, ids } = valid(AuthGet, params);
          return this.context.authState.get(type, ids);
        },
        'auth.set': async (params) => {
          await this.context.authState.set(valid(AuthSet, params).data);
          return null;
        },
        'auth.clear': async () => {
          await this.context.authState.clear();
          return null;
        },
        // A file the child wrote to its spool (a received one held to the media limit there), streamed into the media store.
        'media.save': async (params) => {
          const { mimetype, filename, path } = valid(MediaSave, params);
          return this.context.saveMediaStream({ mimetype, filename: filename ?? null }, await spool.open(path));
        },
      },
    );
    return child;
  }

  private notice(handle: () => Promise<void> | void): void {
    this.notices = this.notices.then(handle).catch((error: unknown) => {
      this.context.log.error({ session: this.context.session, err: error }, 'GOWS engine sent a notification that could not be taken');
    });
  }

  private async status(params: unknown): Promise<void> {
    const { status, reason } = StatusNotice.parse(params);
    const child = this.process;
    if (status === 'SCAN_QR_CODE' && child) {
      // The status is reported either way: without a QR, auth.qr answers "no QR code yet".
      this.qrValue = await child.request('qr', {}).then(
        (qr) => z.string().parse(qr),
        (error: unknown) => {
          this.context.log.warn({ session: this.context.session, err: error }, 'GOWS engine announced a QR code it did not give');
          return null;
        },
      );
    } else if (status !== 'SCAN_QR_CODE') {
      this.qrValue = null;
    }
    this.context.setStatus(status, reason);
  }

  /** An exit nobody asked for is a failed session; the host starts a new process on the next start. */
  private exited(child: EngineProcess, exit: ProcessExit): void {
    if (this.process !== child) return;
    this.process = null;
    this.qrValue = null;
    this.notices = this.notices.then(() => this.context.setStatus('FAILED', `engine process exited (${describeExit(exit)})`));
  }

  /** Closes stdin and waits for the exit, which is then an expected one. */
  private async close(child: EngineProcess): Promise<void> {
    if (this.process === child) this.process = null;
    await child.close(this.options.exitTimeoutMs);
  }

  /** A request whose failure is only logged: stop and logout go on to close the process. */
  private async ask(child: EngineProcess, method: 'stop' | 'logout'): Promise<void> {
    if (!child.running) return;
    await child.request(method, {}).catch((error: unknown) => {
      this.context.log.warn({ session: this.context.session, err: error }, `GOWS engine ${method} failed; closing it`);
    });
  }

  private async call(method: string, params: object): Promise<unknown> {
    const child = this.process;
    if (!child?.running) throw new CommandError('WRONG_STATUS', `session '${this.context.session}' has no running GOWS engine`);
    try {
      return await child.request(method, params);
    } catch (error) {
      throw this.commandError(method, error);
    }
  }

  private commandError(method: string, error: unknown): CommandError {
    const details = { session: this.context.session, engine: this.name };
    if (!(error instanceof JSONRPCErrorException)) return new CommandError('ENGINE_ERROR', `GOWS ${method}: ${reasonOf(error)}`, details);
    if (error.code === (JSONRPCErrorCode.MethodNotFound as number)) {
      return new CommandError('NOT_SUPPORTED', `engine GOWS does not support ${method} (session '${this.context.session}')`, details);
    }
    const data = RpcErrorData.safeParse(error.data);
    if (data.success) {
      // An INVALID naming its fields (`details.issues`, as the Go engine pod sends them) is the 400's list, as NOWEB's invalidField.
      const issues = FieldIssues.safeParse(data.data.details?.issues);
      if (data.data.code === 'INVALID' && issues.success) return new CommandError('INVALID', error.message, issues.data);
      return new CommandError(data.data.code, error.message, data.data.details);
    }
    return new CommandError('ENGINE_ERROR', `GOWS ${method}: ${error.message}`, details);
  }

  private checked<T>(method: string, schema: z.ZodType<T>, result: unknown): T {
    const parsed = schema.safeParse(result);
    if (parsed.success) return parsed.data;
    this.context.log.error({ session: this.context.session, method, issues: parsed.error.issues }, 'GOWS engine answered out of contract');
    throw new CommandError('ENGINE_ERROR', `GOWS ${method}: the engine's answer does not match the protocol: ${z.prettifyError(parsed.error)}`, {
      session: this.context.session,
      engine: this.name,
    });
  }
}

/** Params the child sent that do not fit: an invalid-params error back to it, naming what. */
function valid<T>(schema: z.ZodType<T>, params: unknown): T {
  const parsed = schema.safeParse(params);
  if (!parsed.success) throw new JSONRPCErrorException(z.prettifyError(parsed.error), JSONRPCErrorCode.InvalidParams);
  return parsed.data;
}

/**
 * GOWS sessions as both catalogs make them: a proxy with the optional methods the engine catalog
 * gives GOWS (`methods` only for tests of the proxy itself).
 */
export function gowsEngineFactory(options: GowsOptions, methods: readonly ForwardedMethod[] = gowsCatalogMethods()): EngineFactory {
  return (context) => new GowsEngine(context, options, methods);
}

/** The optional methods the engine catalog gives GOWS: those of its operations, and rejectCall. */
export function gowsCatalogMethods(): ForwardedMethod[] {
  const entry = ENGINE_CATALOG.GOWS;
  const methods = entry.operations.flatMap((op) => {
    const method = METHOD_OF[op];
    return method && isForwarded(method) ? [method] : [];
  });
  // rejectCall is call.reject's method too: once each.
  return [...new Set([...methods, ...(entry.callRejection ? (['rejectCall'] as const) : [])])];
}
