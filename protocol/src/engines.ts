import { z } from 'zod';

/**
 * Engine identifiers. The four of spec part 1 plus SANDBOX, our simulated account
 * (no phone, no network) for tests and for users trying their bots.
 */
export const EngineName = z
  .enum(['WEBJS', 'WPP', 'NOWEB', 'GOWS', 'SANDBOX'])
  .meta({ id: 'EngineName', description: 'Engine that runs the session' });
export type EngineName = z.infer<typeof EngineName>;
