#!/usr/bin/env node
import { pino } from 'pino';
import { ConfigError, readPodConfig } from './config.js';
import { EnginePod } from './engine-pod.js';

/** The engine pod's entry point: one process per session, configured by the operator's env. */
async function main(): Promise<number> {
  const config = readPodConfig(process.env);
  // JSON lines on stdout. Nothing here logs auth state, NATS URLs or credentials.
  const log = pino({ level: config.logLevel, base: { session: config.session, pod: config.podName } });
  const pod = new EnginePod(config, log);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void pod.shutdown(signal));
  return pod.run();
}

main().then(
  (exitCode) => process.exit(exitCode),
  (error: unknown) => {
    process.stderr.write(`${error instanceof ConfigError ? error.message : ((error as Error).stack ?? String(error))}\n`);
    process.exit(1);
  },
);
