import type { SessionInfo } from '@switchboard/protocol';
import { useState } from 'preact/hooks';
import type { Api } from './api.js';

/** A test message through POST /api/sendText; its events show in the monitor. */
export function SendMessage({ api, sessions }: { api: Api; sessions: SessionInfo[] }) {
  const working = sessions.filter((s) => s.status === 'WORKING');
  const [session, setSession] = useState(working[0]?.name ?? '');
  const [chatId, setChatId] = useState('');
  const [text, setText] = useState('Hello from the Switchboard dashboard');
  const [message, setMessage] = useState('');
  return (
    <section aria-labelledby="send-title">
      <h2 id="send-title">Send a test message</h2>
      <form
        class="stack"
        onSubmit={(event) => {
          event.preventDefault();
          api.post<{ id?: string }>('/api/sendText', { session, chatId, text }).then(
            (sent) => setMessage(`sent${typeof sent.id === 'string' ? `: ${sent.id}` : ''}`),
            (failure: unknown) => setMessage((failure as Error).message),
          );
        }}
      >
        <label>
          Session{' '}
          <select id="send-session" value={session} onChange={(e) => setSession(e.currentTarget.value)}>
            <option value="" disabled>
              {working.length ? 'choose' : 'no WORKING session'}
            </option>
            {working.map((s) => (
              <option key={s.name}>{s.name}</option>
            ))}
          </select>
        </label>
        <label>
          Chat id <input id="send-chat" required placeholder="15551234567@c.us" value={chatId} onInput={(e) => setChatId(e.currentTarget.value)} />
        </label>
        <label>
          Text <textarea id="send-text" required rows={3} value={text} onInput={(e) => setText(e.currentTarget.value)} />
        </label>
        <button type="submit" id="send">
          Send
        </button>
      </form>
      {message && (
        <p class="note" role="status" id="send-result">
          {message}
        </p>
      )}
    </section>
  );
}
