import type { SendQueuePage, SessionInfo } from '@switchboard/protocol';
import { type Api, enc } from './api.js';
import { SessionFilter, useSessionList } from './session-list.js';

/** What waits in a session's send queue (paced sending, docs/api.md), each queued send cancellable. */
export function SendQueue({ api, sessions }: { api: Api; sessions: SessionInfo[] }) {
  const paced = sessions.filter((s) => s.config?.sending !== undefined).map((s) => s.name);
  const {
    session,
    setSession,
    list: page,
    message,
    load,
    act,
  } = useSessionList<SendQueuePage>(api, paced, (name) => `/api/${enc(name)}/queue?limit=1000`, { total: 0, items: [] });
  const cancel = (id: string) =>
    act(async () => {
      await api.call('DELETE', `/api/${enc(session)}/queue/${enc(id)}`);
      return `cancelled ${id}`;
    });
  return (
    <section aria-labelledby="queue-title">
      <h2 id="queue-title">Send queue</h2>
      {paced.length === 0 ? (
        <p class="hint">No session paces its sends (config.sending).</p>
      ) : (
        <SessionFilter id="queue" names={paced} session={session} onSession={setSession} onReload={() => void load()} message={message} />
      )}
      {session !== '' && (
        <p class="hint" id="queue-total">
          {page.total} waiting
        </p>
      )}
      {page.items.length > 0 && (
        <div class="scroll">
          <table class="dead">
            <thead>
              <tr>
                <th>Id</th>
                <th>Chat</th>
                <th>Route</th>
                <th>State</th>
                <th>Queued</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {page.items.map((send) => (
                <tr key={send.id} data-queued={send.id}>
                  <td>
                    <code>{send.id}</code>
                  </td>
                  <td>{send.chatId}</td>
                  <td>
                    <code>{send.route}</code>
                  </td>
                  <td>{send.state}</td>
                  <td>{new Date(send.queuedAt).toLocaleString()}</td>
                  <td>
                    {send.state === 'queued' && (
                      <button type="button" onClick={() => void cancel(send.id)}>
                        Cancel
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
