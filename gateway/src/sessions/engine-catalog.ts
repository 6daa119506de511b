import { notSupportedError } from '@switchboard/engine-pod';
import {
  type AppConfig,
  AVAILABLE_ENGINES,
  CALL_REJECTING_ENGINES,
  type BuiltEngine,
  type EngineCommand,
  type EngineName,
  type EngineSettings,
  isBuiltEngine,
  SETTING_ENGINES,
  unsupportedSettings,
  unsupportedCallRejection,
  unsupportedCallRejectionMessage,
  unsupportedSettingsMessage,
} from '@switchboard/protocol';
import { ApiError } from '../http/errors.js';

/**
 * The engine, if this build has it (protocol's engine catalog); else a 422 naming the engines
 * that are available, so the user can pick one. With `config`, also a 422 naming each setting
 * in it the engine cannot honour (rather than ignoring it); with `apps`, also one naming each
 * calls-app reject rule an engine that cannot decline calls would only log. Both modes ask this
 * before a session is made or changed.
 */
export function requireEngine(engine: EngineName, config?: EngineSettings, apps?: readonly AppConfig[]): BuiltEngine {
  // Every engine name of the interface is built today; a build that leaves one out refuses it here.
  const name: string = engine;
  if (!isBuiltEngine(engine)) {
    throw new ApiError(422, `engine ${name} is not available in this build; available: ${AVAILABLE_ENGINES.join(', ')}`, {
      field: 'engine',
      engine: name,
      available: [...AVAILABLE_ENGINES],
    });
  }
  const unsupported = config ? unsupportedSettings(engine, config) : [];
  if (unsupported.length > 0) {
    throw new ApiError(422, unsupportedSettingsMessage(engine, unsupported), {
      fields: unsupported.map((setting) => `body.config.${setting}`),
      engine,
      engines: Object.fromEntries(unsupported.map((setting) => [setting, SETTING_ENGINES[setting]])),
    });
  }
  const rejecting = apps ? unsupportedCallRejection(engine, apps) : [];
  if (rejecting.length > 0) {
    throw new ApiError(422, unsupportedCallRejectionMessage(engine, rejecting), {
      fields: rejecting.map((field) => `body.${field}`),
      engine,
      engines: [...CALL_REJECTING_ENGINES],
    });
  }
  return engine;
}

/**
 * The apps a change to a session is checked with (`requireEngine`): the apps it sends, or the
 * kept ones when it moves the session to another engine; none otherwise, so a pair stored before
 * the rule existed is not refused anew for an unrelated change.
 */
export function appsToCheck(
  change: { readonly apps?: readonly AppConfig[] | null },
  engine: EngineName,
  current: { readonly engine: EngineName; readonly apps: readonly AppConfig[] },
): readonly AppConfig[] | undefined {
  if (change.apps !== undefined) return change.apps ?? [];
  return engine !== current.engine ? current.apps : undefined;
}

/**
 * The 422 NOT_SUPPORTED of a command the session's engine cannot carry out (protocol's engine
 * catalog), thrown before the command travels: the same body the engine host would answer.
 */
export function requireOperation(session: string, engine: EngineName, command: EngineCommand): void {
  const refused = notSupportedError(session, engine, command);
  if (refused) throw refused;
}
