import { z } from 'zod';
import { BUILT_ENGINES, ENGINE_NAMES } from './names.js';

export { BUILT_ENGINES };

export type BuiltEngine = (typeof BUILT_ENGINES)[number];

const NOT_BUILT = ENGINE_NAMES.filter((name) => !(BUILT_ENGINES as readonly string[]).includes(name));

export const EngineName = z.enum(ENGINE_NAMES).meta({
  id: 'EngineName',
  description:
    `Engine that runs the session. These are the names of the interface; this build has ${BUILT_ENGINES.join(', ')}. ` +
    (NOT_BUILT.length > 0
      ? `One it has no engine for (${NOT_BUILT.join(' and ')}) is refused with 422, whose \`details.available\` lists the engines it has `
      : 'An operation an engine cannot do is refused with 422 ') +
    '(GET /api/server/engines says what each can do)',
});
export type EngineName = z.infer<typeof EngineName>;
