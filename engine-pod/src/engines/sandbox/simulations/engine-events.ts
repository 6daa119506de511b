import type { EngineEventPayload, SimulateEngineEvent, SimulateEngineState, StateChangePayload } from '@switchboard/protocol';
import type { z } from 'zod';
import type { SandboxSide } from '../sandbox-side.js';
import type { SimulationResult } from './simulation.js';

/** A low-level engine event, relayed untranslated: `engine.event`. Works in any live status. */
export async function simulateEngineEvent(side: SandboxSide, request: z.infer<typeof SimulateEngineEvent>): SimulationResult {
  const payload: EngineEventPayload = { event: request.event, data: request.data };
  side.context.emit('engine.event', payload);
  return { event: request.event };
}

/**
 * The engine's internal state changes: the deprecated `state.change`. It says nothing of the
 * session status (spec 6.2), which stays as it is. Works in any live status.
 */
export async function simulateEngineState(side: SandboxSide, request: z.infer<typeof SimulateEngineState>): SimulationResult {
  const payload: StateChangePayload = { state: request.state };
  side.context.emit('state.change', payload);
  return { state: request.state };
}
