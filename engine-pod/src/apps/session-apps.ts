import type { AppConfig, CallPayload, CallsAppConfig, EventName } from '@switchboard/protocol';
import type { Engine, EngineLog } from '../engine.js';
import { answerCall } from './calls-app.js';

/**
 * A session's apps (spec 2.3), run beside its engine in the engine host: the same code in local
 * mode and in an engine pod. Apps see the events the engine emits and act through the engine.
 */
export class SessionApps {
  private calls: CallsAppConfig | null = null;

  constructor(
    apps: readonly AppConfig[],
    private readonly context: { readonly session: string; readonly log: EngineLog },
  ) {
    this.set(apps);
  }

  /** Takes effect from the next event. The first enabled `calls` app is the one that runs. */
  set(apps: readonly AppConfig[]): void {
    this.calls = apps.find((app) => app.app === 'calls' && app.enabled !== false)?.config ?? null;
  }

  /** Sees every event the host published, after it is (not the ones it dropped as invalid); cheap for the events no app wants. */
  observe(engine: Engine, event: EventName, payload: Record<string, unknown>): void {
    if (event !== 'call.received' || !this.calls) return;
    void answerCall(engine, this.calls, payload as CallPayload, this.context);
  }
}
