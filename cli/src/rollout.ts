import { CliError, table } from './commands.js';
import { printable } from './printable.js';

/**
 * What `rollout status` reads of an engine's rollout: the operator's state as it stores it in the
 * ConfigMap `switchboard-rollout-<engine>` (operator/src/rollout/rollout-state.ts), key `rollout`.
 * The CLI depends on no operator code; it prints these members and ignores the rest.
 */
interface Version {
  image: string;
  clientVersion?: string;
}
interface Rollout {
  engine: string;
  phase: string;
  from: Version | null;
  to: Version;
  wave: number;
  message?: string;
  sessions: Record<string, { state: string; wave?: number; reason?: string }>;
}
interface ConfigMapList {
  items: { metadata?: { name?: string }; data?: Record<string, string> }[];
}

const STATES = ['pending', 'updating', 'updated', 'rolled_back'];
const version = (v: Version | null) => (v ? printable(v.clientVersion === undefined ? v.image : `${v.image} (client ${v.clientVersion})`) : '-');

/**
 * `switchboard rollout status`: each engine's rollout from a ConfigMap list (`kubectl get cm -l
 * app.kubernetes.io/component=rollout -o json`, which the kubectl plugin runs): its phase, versions,
 * wave and why it halted, then every session that is not pending. Exit 1 when one is halted, so a
 * script can stop on it, as `kubectl rollout status` ends non-zero on a failed rollout.
 */
export function rolloutStatus(listJson: string, out: NodeJS.WritableStream): number {
  let rollouts: Rollout[];
  try {
    rollouts = (JSON.parse(listJson) as ConfigMapList).items.flatMap((item) =>
      item.data?.rollout ? [JSON.parse(item.data.rollout) as Rollout] : [],
    );
  } catch (error) {
    throw new CliError(`rollout status: not a ConfigMap list holding rollouts: ${(error as Error).message}`, { cause: error });
  }
  if (rollouts.length === 0) {
    out.write('no engine version rollout: every engine pod runs the version it was made with\n');
    return 0;
  }
  for (const rollout of rollouts.sort((a, b) => a.engine.localeCompare(b.engine))) {
    const sessions = Object.entries(rollout.sessions).sort(([a], [b]) => a.localeCompare(b));
    const counts = STATES.map((state) => `${state} ${String(sessions.filter(([, entry]) => entry.state === state).length)}`).join(', ');
    out.write(`${printable(rollout.engine)}: ${printable(rollout.phase)}, wave ${String(rollout.wave)} (0 is the canary)\n`);
    out.write(`  from ${version(rollout.from)}\n  to   ${version(rollout.to)}\n  ${counts}\n`);
    if (rollout.message) out.write(`  halted: ${printable(rollout.message)}\n`);
    const shown = sessions.filter(([, entry]) => entry.state !== 'pending');
    if (shown.length > 0) {
      const rows = shown.map(([name, entry]) => [
        printable(name),
        printable(entry.state),
        entry.wave === undefined ? '-' : String(entry.wave),
        printable(entry.reason ?? ''),
      ]);
      out.write(table([['  SESSION', 'STATE', 'WAVE', 'REASON'], ...rows.map(([name, ...rest]) => [`  ${name!}`, ...rest])]));
    }
  }
  return rollouts.some((rollout) => rollout.phase === 'Halted') ? 1 : 0;
}
