import type { SessionInfo } from '@switchboard/protocol';
import { useState } from 'preact/hooks';

/** An event as /ws sends it (docs/events.md); the payload is shown as it came. */
export interface Envelope {
  id: string;
  timestamp: number;
  event: string;
  session: string;
  me?: { id: string; pushName: string };
  payload: unknown;
}

/** How many events the list renders at once. */
const SHOWN = 200;

/** The live stream, newest first: one or all sessions, event filters, pause, each event's payload. */
export function Monitor({ events, sessions }: { events: Envelope[]; sessions: SessionInfo[] }) {
  const [session, setSession] = useState('');
  const [filter, setFilter] = useState('');
  const [paused, setPaused] = useState<Envelope[] | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const source = paused ?? events;
  const names = [...new Set(events.map((e) => e.event))].sort();
  const wanted = filter
    .split(',')
    .map((f) => f.trim())
    .filter((f) => f !== '');
  const shown = source.filter((e) => (session === '' || e.session === session) && (wanted.length === 0 || wanted.some((f) => e.event.startsWith(f))));
  const opened = source.find((e) => e.id === open);
  return (
    <section aria-labelledby="events-title">
      <h2 id="events-title">Events</h2>
      <div class="filters">
        <label>
          Session{' '}
          <select id="event-session" value={session} onChange={(e) => setSession(e.currentTarget.value)}>
            <option value="">all</option>
            {sessions.map((s) => (
              <option key={s.name}>{s.name}</option>
            ))}
          </select>
        </label>
        <label>
          Events{' '}
          <input
            id="event-filter"
            list="event-names"
            placeholder="message, session.status"
            value={filter}
            onInput={(e) => setFilter(e.currentTarget.value)}
          />
          <datalist id="event-names">
            {names.map((n) => (
              <option key={n} value={n} />
            ))}
          </datalist>
        </label>
        <button type="button" id="pause" aria-pressed={paused !== null} onClick={() => setPaused(paused ? null : events)}>
          {paused ? `Resume (${events.length - paused.length > 0 ? `${events.length - paused.length}+ new` : 'none new'})` : 'Pause'}
        </button>
      </div>
      <div class="monitor">
        <ol id="events" aria-label="Events, newest first">
          {shown.slice(0, SHOWN).map((e) => (
            <li key={e.id}>
              <button type="button" aria-expanded={open === e.id} data-event={e.event} onClick={() => setOpen(open === e.id ? null : e.id)}>
                <time>{new Date(e.timestamp).toLocaleTimeString()}</time> <code>{e.event}</code> <span>{e.session}</span>
              </button>
            </li>
          ))}
        </ol>
        {shown.length === 0 && <p class="hint">No events yet{source.length > 0 ? ' match the filters' : ''}.</p>}
        {opened && (
          <div class="payload">
            <h3>
              {opened.event} <small>{opened.id}</small>
            </h3>
            <pre id="payload">{JSON.stringify(opened.payload, null, 2)}</pre>
          </div>
        )}
      </div>
    </section>
  );
}
