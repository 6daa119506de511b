import type { DeadDelivery, ReplayResult, SessionInfo } from '@switchboard/protocol';
import { type Api, enc } from './api.js';
import { SessionFilter, useSessionList } from './session-list.js';

/** The dead webhook deliveries of a session, per webhook, each replayable (routes/deliveries.ts). */
export function DeadLetters({ api, sessions, mayReplay }: { api: Api; sessions: SessionInfo[]; mayReplay: boolean }) {
  const names = sessions.map((s) => s.name);
  const {
    session,
    setSession,
    list: dead,
    message,
    load,
    act,
  } = useSessionList<DeadDelivery[]>(api, names, (name) => `/api/${enc(name)}/webhooks/dead?limit=1000`, []);
  const replay = (ids: number[]) =>
    act(async () => {
      const result = await api.post<ReplayResult>(`/api/${enc(session)}/webhooks/dead/replay`, { ids });
      const skipped = result.skipped.map((s) => `${s.id}: ${s.reason}`).join('; ');
      return `replayed ${result.replayed.length}${skipped ? `, skipped ${skipped}` : ''}`;
    });
  const byUrl = new Map<string, DeadDelivery[]>();
  for (const d of dead) byUrl.set(d.url, [...(byUrl.get(d.url) ?? []), d]);
  return (
    <section aria-labelledby="dead-title">
      <h2 id="dead-title">Dead letters</h2>
      <SessionFilter id="dead" names={names} session={session} onSession={setSession} onReload={() => void load()} message={message} />
      {dead.length === 0 && <p class="hint">No dead deliveries.</p>}
      {[...byUrl].map(([url, list]) => (
        <div class="webhook" key={url}>
          <h3>
            <code>{url}</code> <small>{list.length} dead</small>{' '}
            {mayReplay && (
              <button type="button" class="replay-all" onClick={() => void replay(list.map((d) => d.id))}>
                Replay all
              </button>
            )}
          </h3>
          <div class="scroll">
            <table class="dead">
              <thead>
                <tr>
                  <th>Event</th>
                  <th>Attempts</th>
                  <th>Last error</th>
                  <th>Dead since</th>
                  {mayReplay && <th />}
                </tr>
              </thead>
              <tbody>
                {list.map((d) => (
                  <tr key={d.id} data-dead={d.id}>
                    <td>
                      <code>{d.event}</code>
                    </td>
                    <td>{d.attempts}</td>
                    <td>{d.lastError ? JSON.stringify(d.lastError) : '—'}</td>
                    <td>{new Date(d.deadAt).toLocaleString()}</td>
                    {mayReplay && (
                      <td>
                        <button type="button" onClick={() => void replay([d.id])}>
                          Replay
                        </button>
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </div>
      ))}
    </section>
  );
}
