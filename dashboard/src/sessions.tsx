import type { ApiKeyPermissions, SessionInfo } from '@switchboard/protocol';
import { useState } from 'preact/hooks';
import { BUILT_ENGINES, SESSION_STATUSES } from '@switchboard/protocol/names';
import { type Api, enc } from './api.js';

interface Props {
  api: Api;
  may: ApiKeyPermissions;
  /** The one session the key is limited to, if any: new sessions can only take that name. */
  limit: string | null;
  sessions: SessionInfo[];
  refresh: () => Promise<void>;
  onPair: (name: string) => void;
}

/** The live session table: the list comes from the API, its statuses from /ws. */
export function Sessions({ api, may, limit, sessions, refresh, onPair }: Props) {
  const [text, setText] = useState('');
  const [status, setStatus] = useState('');
  const [message, setMessage] = useState('');
  const [busy, setBusy] = useState(false);

  const act = async (label: string, run: () => Promise<unknown>) => {
    setBusy(true);
    try {
      await run();
      setMessage(`${label}: done`);
    } catch (failure) {
      setMessage(`${label}: ${(failure as Error).message}`);
    } finally {
      setBusy(false);
      await refresh();
    }
  };
  const control = (name: string, op: 'start' | 'stop' | 'restart' | 'logout') =>
    act(`${op} ${name}`, () => api.post(`/api/sessions/${enc(name)}/${op}`));

  const shown = sessions.filter(
    (s) => (text === '' || s.name.includes(text) || (s.me?.id ?? '').includes(text)) && (status === '' || s.status === status),
  );
  return (
    <section aria-labelledby="sessions-title">
      <h2 id="sessions-title">Sessions</h2>
      {may.setting && <CreateSession limit={limit} onCreate={(body) => act(`create ${body.name}`, () => api.post('/api/sessions', body))} />}
      <div class="filters">
        <label>
          Filter{' '}
          <input id="session-filter" type="search" value={text} onInput={(e) => setText(e.currentTarget.value)} placeholder="name or account" />
        </label>
        <label>
          Status{' '}
          <select id="status-filter" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
            <option value="">any</option>
            {SESSION_STATUSES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
      </div>
      {message && (
        <p class="note" role="status">
          {message}
        </p>
      )}
      <div class="scroll">
        <table id="sessions">
          <thead>
            <tr>
              <th>Name</th>
              <th>Engine</th>
              <th>Status</th>
              <th>Account</th>
              <th>Last activity</th>
              {(may.control || may.delete) && <th>Actions</th>}
            </tr>
          </thead>
          <tbody>
            {shown.map((s) => (
              <tr key={s.name} data-session={s.name}>
                <td data-label="Name">{s.name}</td>
                <td data-label="Engine">{s.engine}</td>
                <td data-label="Status">
                  <span class={`status status-${s.status}`} data-status={s.status}>
                    {s.status}
                  </span>
                </td>
                <td data-label="Account">{s.me ? `${s.me.pushName} (${s.me.id})` : '—'}</td>
                <td data-label="Last activity">{s.timestamps.activity ? new Date(s.timestamps.activity).toLocaleString() : '—'}</td>
                {(may.control || may.delete) && (
                  <td class="actions">
                    {may.control && s.status !== 'WORKING' && s.status !== 'STOPPED' && (
                      <button type="button" onClick={() => onPair(s.name)}>
                        Pair
                      </button>
                    )}
                    {may.control && s.status === 'STOPPED' && (
                      <button type="button" disabled={busy} onClick={() => void control(s.name, 'start')}>
                        Start
                      </button>
                    )}
                    {may.control && s.status !== 'STOPPED' && (
                      <button type="button" disabled={busy} onClick={() => void control(s.name, 'stop')}>
                        Stop
                      </button>
                    )}
                    {may.control && (
                      <button type="button" disabled={busy} onClick={() => void control(s.name, 'restart')}>
                        Restart
                      </button>
                    )}
                    {may.control && s.status === 'WORKING' && (
                      <button type="button" disabled={busy} onClick={() => confirm(`Log out of ${s.name}?`) && void control(s.name, 'logout')}>
                        Log out
                      </button>
                    )}
                    {may.delete && (
                      <button
                        type="button"
                        class="danger"
                        disabled={busy}
                        onClick={() =>
                          confirm(`Delete session ${s.name}?`) &&
                          void act(`delete ${s.name}`, () => api.call('DELETE', `/api/sessions/${enc(s.name)}`))
                        }
                      >
                        Delete
                      </button>
                    )}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
        {shown.length === 0 && <p class="hint">No sessions{sessions.length > 0 ? ' match the filters' : ''}.</p>}
      </div>
    </section>
  );
}

function CreateSession({
  limit,
  onCreate,
}: {
  limit: string | null;
  onCreate: (body: { name: string; engine: string; start: boolean }) => Promise<void>;
}) {
  const [name, setName] = useState(limit ?? '');
  const [engine, setEngine] = useState<string>('SANDBOX');
  const [start, setStart] = useState(true);
  return (
    <form
      class="inline"
      id="create-session"
      onSubmit={(event) => {
        event.preventDefault();
        void onCreate({ name, engine, start });
      }}
    >
      <label>
        New session <input id="new-session-name" required value={name} readOnly={limit !== null} onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <label>
        Engine{' '}
        <select id="new-session-engine" value={engine} onChange={(e) => setEngine(e.currentTarget.value)}>
          {BUILT_ENGINES.map((e) => (
            <option key={e}>{e}</option>
          ))}
        </select>
      </label>
      <label>
        <input type="checkbox" checked={start} onChange={(e) => setStart(e.currentTarget.checked)} /> start
      </label>
      <button type="submit">Create</button>
    </form>
  );
}
