import type { ApiKeyActions, ApiKeyDTO, SessionInfo } from '@switchboard/protocol';
import { useEffect, useState } from 'preact/hooks';
import { type Api, enc } from './api.js';

const ACTIONS = ['read', 'send', 'control', 'setting', 'delete'] as const;

interface Scope {
  isAdmin: boolean;
  session: string | null;
  actions: ApiKeyActions | null;
}

/** API keys (admin keys only): list, create (the secret shown once), change the scope, revoke. */
export function Keys({ api, sessions }: { api: Api; sessions: SessionInfo[] }) {
  const [keys, setKeys] = useState<ApiKeyDTO[]>([]);
  const [created, setCreated] = useState<ApiKeyDTO | null>(null);
  const [editing, setEditing] = useState<ApiKeyDTO | null>(null);
  const [message, setMessage] = useState('');
  const load = async () => {
    try {
      setKeys(await api.get<ApiKeyDTO[]>('/api/keys'));
    } catch (failure) {
      setMessage((failure as Error).message);
    }
  };
  useEffect(() => void load(), []);
  const run = async (label: string, call: () => Promise<unknown>) => {
    try {
      await call();
      setMessage(`${label}: done`);
    } catch (failure) {
      setMessage(`${label}: ${(failure as Error).message}`);
    }
    await load();
  };
  return (
    <section aria-labelledby="keys-title">
      <h2 id="keys-title">API keys</h2>
      <ScopeForm
        title="New key"
        sessions={sessions}
        initial={{ isAdmin: false, session: null, actions: null }}
        submit="Create key"
        onSubmit={(scope) =>
          void api.post<ApiKeyDTO>('/api/keys', scope).then(
            (key) => (setCreated(key), setMessage(''), load()),
            (failure: unknown) => setMessage((failure as Error).message),
          )
        }
      />
      {created?.key && (
        <div class="secret" role="alert">
          <p>
            Key <code>{created.id}</code>: copy it now, it is shown this once.
          </p>
          <input id="new-key" readOnly value={created.key} onFocus={(e) => e.currentTarget.select()} />
          <button type="button" onClick={() => setCreated(null)}>
            I have stored it
          </button>
        </div>
      )}
      {message && (
        <p class="note" role="status">
          {message}
        </p>
      )}
      {editing && (
        <ScopeForm
          title={`Scope of ${editing.id}`}
          sessions={sessions}
          initial={editing}
          submit="Save scope"
          onSubmit={(scope) => {
            setEditing(null);
            void run(`update ${editing.id}`, () => api.call('PUT', `/api/keys/${enc(editing.id)}`, scope));
          }}
          onCancel={() => setEditing(null)}
        />
      )}
      <div class="scroll">
        <table id="keys">
          <thead>
            <tr>
              <th>Id</th>
              <th>Kind</th>
              <th>Session</th>
              <th>Actions</th>
              <th>Active</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {keys.map((k) => (
              <tr key={k.id} data-key={k.id}>
                <td>
                  <code>{k.id}</code>
                </td>
                <td>{k.kind}</td>
                <td>{k.session ?? 'all'}</td>
                <td>{k.actions ? ACTIONS.filter((a) => k.actions?.[a]).join(', ') || 'none' : 'all'}</td>
                <td>{k.isActive ? 'yes' : 'no'}</td>
                <td class="actions">
                  {k.kind !== 'media' && k.kind !== 'control' && (
                    <button type="button" onClick={() => setEditing(k)}>
                      Scope
                    </button>
                  )}
                  <button
                    type="button"
                    onClick={() =>
                      void run(k.isActive ? 'deactivate' : 'activate', () => api.call('PUT', `/api/keys/${enc(k.id)}`, { isActive: !k.isActive }))
                    }
                  >
                    {k.isActive ? 'Deactivate' : 'Activate'}
                  </button>
                  <button
                    type="button"
                    class="danger"
                    onClick={() => confirm(`Revoke ${k.id}?`) && void run(`revoke ${k.id}`, () => api.call('DELETE', `/api/keys/${enc(k.id)}`))}
                  >
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

interface FormProps {
  title: string;
  sessions: SessionInfo[];
  initial: Scope;
  submit: string;
  onSubmit: (scope: Scope) => void;
  onCancel?: () => void;
}

function ScopeForm({ title, sessions, initial, submit, onSubmit, onCancel }: FormProps) {
  const [isAdmin, setAdmin] = useState(initial.isAdmin);
  const [session, setSession] = useState(initial.session ?? '');
  const [limited, setLimited] = useState(initial.actions !== null);
  const [actions, setActions] = useState<ApiKeyActions>(initial.actions ?? { read: true });
  return (
    <form
      class="scope"
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit(
          isAdmin
            ? { isAdmin, session: null, actions: null }
            : { isAdmin, session: session === '' ? null : session, actions: limited ? actions : null },
        );
      }}
    >
      <fieldset>
        <legend>{title}</legend>
        <label>
          <input type="checkbox" checked={isAdmin} onChange={(e) => setAdmin(e.currentTarget.checked)} /> admin (manages keys, every session)
        </label>
        {!isAdmin && (
          <>
            <label>
              Session{' '}
              <input
                class="key-session"
                list="key-sessions"
                placeholder="all sessions"
                value={session}
                onInput={(e) => setSession(e.currentTarget.value)}
              />
              <datalist id="key-sessions">
                {sessions.map((s) => (
                  <option key={s.name} value={s.name} />
                ))}
              </datalist>
            </label>
            <label>
              <input type="checkbox" class="key-limited" checked={limited} onChange={(e) => setLimited(e.currentTarget.checked)} /> only these
              actions:
            </label>
            <span class="checks">
              {ACTIONS.map((a) => (
                <label key={a}>
                  <input
                    type="checkbox"
                    class={`key-action-${a}`}
                    disabled={!limited}
                    checked={actions[a] === true}
                    onChange={(e) => setActions({ ...actions, [a]: e.currentTarget.checked })}
                  />{' '}
                  {a}
                </label>
              ))}
            </span>
          </>
        )}
        <button type="submit">{submit}</button>
        {onCancel && (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </fieldset>
    </form>
  );
}
