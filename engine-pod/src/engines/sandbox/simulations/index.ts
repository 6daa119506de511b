import type { SimulateRequest } from '@switchboard/protocol';
import type { SandboxSide } from '../sandbox-side.js';
import { EVENT_SIMULATIONS } from './event-kinds.js';
import { simulateMessage } from './message.js';
import { simulatePasskey } from './passkey.js';
import { simulateScan } from './scan.js';
import type { Simulation, SimulationResult } from './simulation.js';

type Kind = SimulateRequest['kind'];

/**
 * One simulation per `kind` of `POST /api/{session}/sandbox/simulate` (docs/sandbox.md). The
 * type makes a kind added to the protocol fail to compile until it is simulated here.
 */
const SIMULATIONS: { readonly [K in Kind]: Simulation<K> } = {
  scan: simulateScan,
  message: simulateMessage,
  ...EVENT_SIMULATIONS,
  passkey: simulatePasskey,
};

export function runSimulation(side: SandboxSide, request: SimulateRequest): SimulationResult {
  const simulation = SIMULATIONS[request.kind] as Simulation<Kind>;
  return simulation(side, request);
}
