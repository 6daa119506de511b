import { clientVersionProblem } from '@switchboard/protocol';

/**
 * A socket engine's client version from its variable (SWITCHBOARD_NOWEB_CLIENT_VERSION,
 * SWITCHBOARD_GOWS_CLIENT_VERSION), held to the rules of a session's `config.clientVersion`;
 * undefined when unset. A wrong value throws, naming the variable, before anything starts.
 */
export function clientVersionFromEnv(env: NodeJS.ProcessEnv, variable: string): string | undefined {
  const raw = env[variable];
  if (!raw) return undefined;
  const problem = clientVersionProblem(raw);
  if (problem) throw new Error(`${variable}: ${problem}, got ${JSON.stringify(raw)}`);
  return raw;
}
