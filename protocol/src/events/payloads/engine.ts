import { z } from 'zod';

/** `engine.event`: a debugging aid, so the engine's event is relayed untranslated. */
export const EngineEventPayload = z
  .object({
    event: z.string().meta({ description: "The engine's own event name" }),
    data: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'EngineEventPayload' });
export type EngineEventPayload = z.infer<typeof EngineEventPayload>;

/**
 * Deprecated `state.change`: the engine's internal connection state, not the session status.
 * The reference types the payload only as an object; `state` is the one member this service
 * promises, and whatever else the engine adds is kept rather than stripped.
 */
export const StateChangePayload = z
  .looseObject({ state: z.string().meta({ description: 'Engine state name', examples: ['CONNECTED'] }) })
  .meta({ id: 'StateChangePayload', description: 'Superseded by `session.status`', deprecated: true });
export type StateChangePayload = z.infer<typeof StateChangePayload>;
