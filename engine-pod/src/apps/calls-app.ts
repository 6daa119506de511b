import { type CallPayload, type CallsAppConfig, MessageTextRequest } from '@switchboard/protocol';
import type { Engine, EngineLog } from '../engine.js';

const SEND_TEXT_ARGS = MessageTextRequest.omit({ session: true });

/**
 * The calls app (spec 2.3) on one incoming call: declines it when the rule for its kind of chat
 * (direct or group) says so, then sends the caller the rule's reply, if any. The engine reports
 * the decline as `call.rejected`; the reply is a send like any other (`message.any`, source
 * `api`, then its acks).
 */
export async function answerCall(
  engine: Engine,
  config: CallsAppConfig,
  call: CallPayload,
  context: { readonly session: string; readonly log: EngineLog },
): Promise<void> {
  const rule = call.isGroup ? config.group : config.dm;
  if (!rule.reject) return;
  const where = { session: context.session, callId: call.id, from: call.from, isGroup: call.isGroup };
  if (!engine.rejectCall) {
    context.log.warn({ ...where, engine: engine.name }, `the calls app is on, but engine ${engine.name} cannot reject calls`);
    return;
  }
  try {
    await engine.rejectCall({ id: call.id, from: call.from });
  } catch (error) {
    context.log.warn({ ...where, err: error }, 'the calls app could not reject a call');
    return;
  }
  if (!rule.message) return;
  try {
    // Parsed, so the send gets the defaults any API client's send gets.
    await engine.sendText(SEND_TEXT_ARGS.parse({ chatId: call.from, text: rule.message }));
  } catch (error) {
    context.log.warn({ ...where, err: error }, 'the calls app rejected a call but could not send its reply');
  }
}
