import { z } from 'zod';

/** Engine identifiers of the interface: the four of spec part 1 plus SANDBOX, our simulated account. */
const ENGINE_NAMES = ['WEBJS', 'WPP', 'NOWEB', 'GOWS', 'SANDBOX'] as const;

/**
 * The engines this build has; `ENGINE_CATALOG` (engine-catalog.ts) says what each does. Every
 * other name of the interface is refused: by the gateway with a 422 listing these, by the
 * operator with `EngineNotAvailable`, and the CRD's `spec.engine` enum leaves it out.
 */
export const BUILT_ENGINES = ['SANDBOX', 'NOWEB', 'WEBJS', 'GOWS'] as const satisfies readonly (typeof ENGINE_NAMES)[number][];
export type BuiltEngine = (typeof BUILT_ENGINES)[number];

const NOT_BUILT = ENGINE_NAMES.filter((name) => !(BUILT_ENGINES as readonly string[]).includes(name));

export const EngineName = z.enum(ENGINE_NAMES).meta({
  id: 'EngineName',
  description:
    `Engine that runs the session. These are the names of the interface; this build has ${BUILT_ENGINES.join(', ')}. ` +
    `One it has no engine for (${NOT_BUILT.join(' and ')}) is refused with 422, whose \`details.available\` lists the engines it has ` +
    '(GET /api/server/engines says what each can do)',
});
export type EngineName = z.infer<typeof EngineName>;
