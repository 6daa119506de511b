import { useEffect, useState } from 'preact/hooks';
import type { Api } from './api.js';

/**
 * What a view that lists something per session shares (dead letters, the send queue): the chosen
 * session, the list read for it (again whenever the choice changes), and a status message, which
 * a failed read fills with the gateway's error.
 */
export function useSessionList<T>(api: Api, names: readonly string[], path: (session: string) => string, empty: T) {
  const [session, setSession] = useState(names[0] ?? '');
  const [list, setList] = useState<T>(empty);
  const [message, setMessage] = useState('');
  const load = async () => {
    if (session === '') return;
    try {
      setList(await api.get<T>(path(session)));
    } catch (failure) {
      setMessage((failure as Error).message);
    }
  };
  useEffect(() => void load(), [session]);
  /** Runs an action on the list, says how it went (or why it failed), then reads the list again. */
  const act = async (action: () => Promise<string>) => {
    try {
      setMessage(await action());
    } catch (failure) {
      setMessage((failure as Error).message);
    }
    await load();
  };
  return { session, setSession, list, message, load, act };
}

/** The session picker and Reload button above such a list, and its status line; `id` names both for the page's tests. */
export function SessionFilter(props: {
  id: string;
  names: readonly string[];
  session: string;
  onSession: (session: string) => void;
  onReload: () => void;
  message: string;
}) {
  return (
    <>
      <div class="filters">
        <label>
          Session{' '}
          <select id={`${props.id}-session`} value={props.session} onChange={(e) => props.onSession(e.currentTarget.value)}>
            {props.names.map((name) => (
              <option key={name}>{name}</option>
            ))}
          </select>
        </label>
        <button type="button" onClick={props.onReload}>
          Reload
        </button>
      </div>
      {props.message && (
        <p class="note" role="status" id={`${props.id}-message`}>
          {props.message}
        </p>
      )}
    </>
  );
}
