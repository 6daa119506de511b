import { z } from 'zod';

/** `_data`: the engine's own record, passed through so clients can reach fields we do not map. */
export const rawData = () => z.record(z.string(), z.unknown()).meta({ description: 'Engine-specific raw data; differs per engine' });

/** Timestamps inside payloads follow the message record: Unix seconds, possibly fractional. */
export const unixSeconds = () => z.number().meta({ description: 'Unix seconds' });
