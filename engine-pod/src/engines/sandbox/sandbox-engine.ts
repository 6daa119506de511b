import {
  ACKS,
  ackName,
  type MeInfo,
  type MessageRecord,
  messageId,
  type RequestCodeRequest,
  type SessionStatus,
  type SimulateRequest,
} from '@switchboard/protocol';
import { CommandError } from '../../command-error.js';
import type { Engine, EngineContext, SendTextArgs } from '../../engine.js';
import { pairingCode, sandboxMessageId, sandboxQrValue } from './codes.js';
import { DelayQueue } from './delay-queue.js';
import type { SandboxSide } from './sandbox-side.js';
import { runSimulation } from './simulations/index.js';

export interface SandboxOptions {
  /** How often the QR is renewed while waiting for a scan (spec: each renewal is an event). */
  readonly qrRenewMs: number;
  /** When the simulated server and device acknowledge a sent message. */
  readonly ackDelaysMs: { readonly server: number; readonly device: number };
}

export const DEFAULT_SANDBOX_OPTIONS: SandboxOptions = {
  qrRenewMs: 20_000,
  ackDelaysMs: { server: 100, device: 400 },
};

const CREDS = 'creds';

/**
 * SANDBOX: a simulated account with no phone and no network. It behaves like a real engine from
 * the API's point of view (statuses, QR renewal, pairing, acks) and is driven from the other
 * side by `simulate`. Pairing survives a restart, like a real engine's saved credentials.
 */
export class SandboxEngine implements Engine {
  readonly name = 'SANDBOX' as const;
  private qrValue: string | null = null;
  private qrTimer: NodeJS.Timeout | null = null;
  private readonly serverAcks: DelayQueue;
  private readonly deviceAcks: DelayQueue;
  private me: MeInfo | null = null;
  private codeFor: string | null = null;
  private status: SessionStatus = 'STARTING';
  /** What simulations see of this engine (sandbox/simulations/). */
  private readonly side: SandboxSide;

  constructor(
    private readonly context: EngineContext,
    private readonly options: SandboxOptions = DEFAULT_SANDBOX_OPTIONS,
  ) {
    this.serverAcks = new DelayQueue(options.ackDelaysMs.server);
    this.deviceAcks = new DelayQueue(options.ackDelaysMs.device);
    const engine = this;
    this.side = {
      context,
      get status() {
        return engine.status;
      },
      get pairingPhone() {
        return engine.codeFor;
      },
      requireWorking: () => this.requireWorking(),
      requireStatus: (...expected) => this.requireStatus(...expected),
      pair: async (me) => {
        await this.context.authState.set({ [CREDS]: { me } });
        this.becomeWorking(me);
      },
      moveTo: (status) => {
        this.clearTimers();
        this.qrValue = null;
        this.status = status;
        this.context.setStatus(status);
      },
    };
  }

  async start(): Promise<void> {
    const saved = await this.context.authState.get<MeInfo>(CREDS, ['me']);
    if (this.status === 'STOPPED') return;
    if (saved.me) this.becomeWorking(saved.me);
    else this.waitForScan();
  }

  async stop(): Promise<void> {
    this.status = 'STOPPED';
    this.clearTimers();
  }

  async logout(): Promise<void> {
    await this.context.authState.clear();
    this.me = null;
    this.context.setMe(null);
  }

  qr(): string {
    if (!this.qrValue) throw new CommandError('WRONG_STATUS', 'no QR code is waiting to be scanned');
    return this.qrValue;
  }

  async requestCode(request: RequestCodeRequest): Promise<{ code: string }> {
    this.codeFor = request.phoneNumber;
    return { code: pairingCode() };
  }

  async sendText(args: SendTextArgs): Promise<MessageRecord> {
    const me = this.requireWorking();
    const id = messageId(true, args.chatId, args.id ?? sandboxMessageId());
    const record: MessageRecord = {
      id,
      timestamp: Date.now() / 1000,
      from: me.id,
      fromMe: true,
      source: 'api',
      to: args.chatId,
      participant: null,
      body: args.text,
      hasMedia: false,
      media: null,
      ack: ACKS.PENDING,
      ackName: 'PENDING',
      vCards: [],
      replyTo: args.reply_to ? { id: args.reply_to, hasMedia: false } : null,
      _data: { engine: 'SANDBOX', linkPreview: args.linkPreview },
    };
    this.context.emit('message.any', record);
    this.serverAcks.push(() => this.acknowledge(record, ACKS.SERVER));
    this.deviceAcks.push(() => this.acknowledge(record, ACKS.DEVICE));
    return record;
  }

  async simulate(request: SimulateRequest): Promise<Record<string, unknown>> {
    return runSimulation(this.side, request);
  }

  private waitForScan(): void {
    this.renewQr();
    this.qrTimer = setInterval(() => this.renewQr(), this.options.qrRenewMs);
  }

  private renewQr(): void {
    this.qrValue = sandboxQrValue();
    this.status = 'SCAN_QR_CODE';
    this.context.setStatus('SCAN_QR_CODE');
  }

  private becomeWorking(me: MeInfo): void {
    this.clearTimers();
    this.qrValue = null;
    this.codeFor = null;
    this.me = me;
    this.status = 'WORKING';
    this.context.setMe(me);
    this.context.setStatus('WORKING');
  }

  private requireWorking(): MeInfo {
    this.requireStatus('WORKING');
    if (!this.me) throw new CommandError('WRONG_STATUS', `session '${this.context.session}' has no account`);
    return this.me;
  }

  private requireStatus(...expected: SessionStatus[]): void {
    if (!expected.includes(this.status)) {
      throw new CommandError('WRONG_STATUS', `session '${this.context.session}' is ${this.status}; this needs ${expected.join(' or ')}`, {
        session: this.context.session,
        status: this.status,
        expected,
      });
    }
  }

  private acknowledge(record: MessageRecord, ack: number): void {
    this.context.emit('message.ack', {
      id: record.id,
      from: record.to,
      to: record.from,
      participant: null,
      fromMe: true,
      ack,
      ackName: ackName(ack),
    });
  }

  private clearTimers(): void {
    if (this.qrTimer) clearInterval(this.qrTimer);
    this.qrTimer = null;
    this.serverAcks.clear();
    this.deviceAcks.clear();
  }
}
