import type { CallPayload, SimulateCall } from '@switchboard/protocol';
import type { z } from 'zod';
import { CommandError } from '../../../command-error.js';
import type { SandboxSide } from '../sandbox-side.js';
import type { SimulationResult } from './simulation.js';
import { nowSeconds, sandboxCallId } from './world-ids.js';

/**
 * A call rings (`call.received`), or a ringing call is accepted (`call.accepted`) or declined
 * (`call.rejected`) on another device. The later events repeat the ring's fields.
 */
export async function simulateCall(side: SandboxSide, request: z.infer<typeof SimulateCall>): SimulationResult {
  side.requireWorking();
  if (request.status === 'offer') {
    const call: CallPayload = {
      id: request.id ?? sandboxCallId(),
      from: request.from!,
      timestamp: nowSeconds(),
      isVideo: request.isVideo,
      isGroup: request.groupId !== undefined,
      _data: { engine: 'SANDBOX', status: 'offer', ...(request.groupId ? { groupJid: request.groupId } : {}) },
    };
    side.world.calls.set(call.id, call);
    side.context.emit('call.received', call);
    return { id: call.id };
  }
  const call = endCall(side, request.id!, request.status);
  side.context.emit(request.status === 'accept' ? 'call.accepted' : 'call.rejected', call);
  return { id: call.id };
}

/** The engine's `rejectCall` (the calls app): the ringing call ends as `call.rejected`. */
export function rejectRingingCall(side: SandboxSide, request: { readonly id: string; readonly from: string }): void {
  side.requireWorking();
  side.context.emit('call.rejected', endCall(side, request.id, 'reject'));
}

/** Takes a call off the ringing ones; the event that ends it repeats its fields. */
function endCall(side: SandboxSide, id: string, status: 'accept' | 'reject'): CallPayload {
  const ringing = side.world.calls.get(id);
  if (!ringing) {
    throw new CommandError('NOT_FOUND', `no call ${id} is ringing on session '${side.context.session}'`, {
      session: side.context.session,
      callId: id,
    });
  }
  side.world.calls.delete(id);
  return { ...ringing, timestamp: nowSeconds(), _data: { ...ringing._data, status } };
}
