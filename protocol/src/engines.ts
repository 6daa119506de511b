import { z } from 'zod';

/**
 * Engine identifiers. The four of spec part 1 plus SANDBOX, our simulated account
 * (no phone, no network) for tests and for users trying their bots.
 */
export const EngineName = z
  .enum(['WEBJS', 'WPP', 'NOWEB', 'GOWS', 'SANDBOX'])
  .meta({
    id: 'EngineName',
    description:
      'Engine that runs the session. These are the names of the interface; one this build has no engine ' +
      'for (WPP and GOWS) is refused with 422, whose `details.available` lists the engines it has',
  });
export type EngineName = z.infer<typeof EngineName>;
