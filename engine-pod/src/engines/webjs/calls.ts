import type { CallPayload } from '@switchboard/protocol';
import { CommandError } from '../../command-error.js';
import type { WebjsDeps } from './deps.js';
import { callPayload } from './message-mapping.js';
import type { WebjsCall } from './webjs-client.js';

/** Calls kept for declining; the oldest is forgotten first (a call rings for a minute at most). */
const KEPT_CALLS = 64;

/**
 * Incoming calls and declining them: the library's `Call` has `reject()`, so each offer is kept
 * by its id until it is declined (the calls app, spec 2.3), then `call.rejected` follows with
 * the fields of its `call.received`.
 */
export class WebjsCalls {
  private readonly ringing = new Map<string, { readonly call: WebjsCall; readonly payload: CallPayload }>();

  constructor(private readonly deps: WebjsDeps) {}

  received(call: WebjsCall): void {
    const payload = callPayload(call);
    this.ringing.set(call.id, { call, payload });
    if (this.ringing.size > KEPT_CALLS) this.ringing.delete(this.ringing.keys().next().value!);
    this.deps.context.emit('call.received', payload);
  }

  async rejectCall({ id }: { readonly id: string; readonly from: string }): Promise<void> {
    this.deps.client();
    const ringing = this.ringing.get(id);
    if (!ringing) {
      throw new CommandError('NOT_FOUND', `no call ${id} is ringing on session '${this.deps.context.session}'`, {
        session: this.deps.context.session,
        callId: id,
      });
    }
    await ringing.call.reject().catch(this.deps.engineError(`reject call ${id}`));
    this.ringing.delete(id);
    this.deps.context.emit('call.rejected', { ...ringing.payload, timestamp: Date.now() / 1000 });
  }
}
