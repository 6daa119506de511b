import type { SendQueuePage, SessionInfo } from '@switchboard/protocol';
import { useEffect, useState } from 'preact/hooks';
import { type Api, enc } from './api.js';

/** What waits in a session's send queue (paced sending, docs/api.md), each queued send cancellable. */
export function SendQueue({ api, sessions }: { api: Api; sessions: SessionInfo[] }) {
  const paced = sessions.filter((s) => s.config?.sending !== undefined);
  const [session, setSession] = useState(paced[0]?.name ?? '');
  const [page, setPage] = useState<SendQueuePage>({ total: 0, items: [] });
  const [message, setMessage] = useState('');
  const load = async () => {
    if (session === '') return;
    try {
      setPage(await api.get<SendQueuePage>(`/api/${enc(session)}/queue?limit=1000`));
    } catch (failure) {
      setMessage((failure as Error).message);
    }
  };
  useEffect(() => void load(), [session]);
  const cancel = async (id: string) => {
    try {
      await api.call('DELETE', `/api/${enc(session)}/queue/${enc(id)}`);
      setMessage(`cancelled ${id}`);
    } catch (failure) {
      setMessage((failure as Error).message);
    }
    await load();
  };
  return (
    <section aria-labelledby="queue-title">
      <h2 id="queue-title">Send queue</h2>
      {paced.length === 0 ? (
        <p class="hint">No session paces its sends (config.sending).</p>
      ) : (
        <div class="filters">
          <label>
            Session{' '}
            <select id="queue-session" value={session} onChange={(e) => setSession(e.currentTarget.value)}>
              {paced.map((s) => (
                <option key={s.name}>{s.name}</option>
              ))}
            </select>
          </label>
          <button type="button" onClick={() => void load()}>
            Reload
          </button>
        </div>
      )}
      {message && (
        <p class="note" role="status" id="queue-message">
          {message}
        </p>
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
