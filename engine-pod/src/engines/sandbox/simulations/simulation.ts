import type { SimulateRequest } from '@switchboard/protocol';
import type { SandboxSide } from '../sandbox-side.js';

/** What a simulation answers `simulate` with (docs/sandbox.md): the ids and values a caller needs next. */
export type SimulationResult = Promise<Record<string, unknown>>;

/** The simulation of one `kind`, given the request of that kind. */
export type Simulation<K extends SimulateRequest['kind']> = (side: SandboxSide, request: Extract<SimulateRequest, { kind: K }>) => SimulationResult;
