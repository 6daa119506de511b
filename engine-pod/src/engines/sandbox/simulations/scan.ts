import { DEFAULT_SANDBOX_ME, type SimulateScan } from '@switchboard/protocol';
import type { z } from 'zod';
import type { SandboxSide } from '../sandbox-side.js';
import type { SimulationResult } from './simulation.js';

/** The QR is scanned (or a request-code pairing is confirmed on the phone): WORKING. */
export async function simulateScan(side: SandboxSide, request: z.infer<typeof SimulateScan>): SimulationResult {
  side.requireStatus('SCAN_QR_CODE');
  const me = request.me ?? (side.pairingPhone ? { id: `${side.pairingPhone}@c.us`, pushName: DEFAULT_SANDBOX_ME.pushName } : DEFAULT_SANDBOX_ME);
  await side.pair(me);
  return { me };
}
