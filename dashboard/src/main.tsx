import type { ApiKeySelfDTO, SessionInfo } from '@switchboard/protocol';
import { render } from 'preact';
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { Api, openEvents, storedKey, storeKey } from './api.js';
import { DeadLetters } from './dead-letters.js';
import { type Envelope, Monitor } from './monitor.js';
import { Keys } from './keys.js';
import { Pairing } from './pairing.js';
import { SendMessage } from './send.js';
import { SendQueue } from './send-queue.js';
import { Sessions } from './sessions.js';
import './style.css';

type Tab = 'sessions' | 'pairing' | 'events' | 'dead' | 'send' | 'queue' | 'keys';

/** The events the monitor keeps; older ones are dropped. */
const KEEP_EVENTS = 500;

function Login({ onKey, error }: { onKey: (key: string) => void; error: string }) {
  const [key, setKey] = useState('');
  return (
    <main class="login">
      <h1>Switchboard</h1>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (key.trim() !== '') onKey(key.trim());
        }}
      >
        <label for="api-key">API key</label>
        <input id="api-key" type="password" autocomplete="off" value={key} onInput={(e) => setKey(e.currentTarget.value)} autofocus />
        <button type="submit">Open</button>
        <p class="hint">Kept in this tab only (sessionStorage), sent as the X-Api-Key header.</p>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
      </form>
    </main>
  );
}

function App() {
  const [key, setKey] = useState<string | null>(storedKey());
  const [me, setMe] = useState<ApiKeySelfDTO | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    if (key === null) return;
    new Api(key).me().then(
      (self) => {
        storeKey(key);
        setMe(self);
      },
      (failure: unknown) => {
        storeKey(null);
        setKey(null);
        setError(failure instanceof Error ? failure.message : String(failure));
      },
    );
  }, [key]);
  if (key === null || me === null) return <Login onKey={(k) => (setError(''), setKey(k))} error={error} />;
  return (
    <Dashboard
      api={new Api(key)}
      me={me}
      onLogout={() => {
        storeKey(null);
        setMe(null);
        setKey(null);
      }}
    />
  );
}

function Dashboard({ api, me, onLogout }: { api: Api; me: ApiKeySelfDTO; onLogout: () => void }) {
  const may = me.permissions;
  const tabs = useMemo(
    () =>
      (
        [
          ['sessions', 'Sessions', may.sessions],
          ['pairing', 'Pairing', may.control],
          ['events', 'Events', may.events],
          ['dead', 'Dead letters', may.read],
          ['send', 'Send', may.send],
          ['queue', 'Send queue', may.send],
          ['keys', 'API keys', may.keys],
        ] as const
      ).filter(([, , allowed]) => allowed),
    [may],
  );
  const [tab, setTab] = useState<Tab>(tabs[0]?.[0] ?? 'sessions');
  const [sessions, setSessions] = useState<SessionInfo[]>([]);
  const [events, setEvents] = useState<Envelope[]>([]);
  const [live, setLive] = useState<string>(may.events ? 'connecting' : 'polling');
  const [pairingOf, setPairingOf] = useState<string | null>(me.session);
  /** Bumped on each QR renewal (session.status SCAN_QR_CODE) per session: the pairing view fetches the new QR. */
  const [qrTicks, setQrTicks] = useState<Record<string, number>>({});
  const [error, setError] = useState('');

  const refresh = useCallback(async () => {
    try {
      if (may.sessions) setSessions(await api.get<SessionInfo[]>('/api/sessions?all=true'));
      else if (me.session) setSessions([await api.get<SessionInfo>(`/api/sessions/${encodeURIComponent(me.session)}`)]);
      setError('');
    } catch (failure) {
      setError((failure as Error).message);
    }
  }, [api.key]);

  useEffect(() => void refresh(), [refresh]);

  // The live feed: /ws for keys that may open it, the session list polled for the others (a control key).
  const refreshSoon = useRef<number | null>(null);
  useEffect(() => {
    // Statuses come from /ws; a session made or deleted by another client sends no event, so
    // the list is read again now and then (often, for a key that cannot open /ws).
    const timer = setInterval(() => void refresh(), may.events ? 10_000 : 2000);
    return () => clearInterval(timer);
  }, [refresh]);
  useEffect(() => {
    if (!may.events) return;
    let socket: WebSocket | null = null;
    let stopped = false;
    let retry: number | null = null;
    const connect = () => {
      socket = openEvents(api.key, me.session);
      socket.onopen = () => {
        setLive('live');
        void refresh();
      };
      socket.onmessage = (message: MessageEvent<string>) => {
        const envelope = JSON.parse(message.data) as Envelope;
        setEvents((list) => [envelope, ...list].slice(0, KEEP_EVENTS));
        if (envelope.event === 'session.status') {
          const { status } = envelope.payload as { status: SessionInfo['status'] };
          setSessions((list) => list.map((s) => (s.name === envelope.session ? { ...s, status, me: envelope.me ?? s.me } : s)));
          if (status === 'SCAN_QR_CODE') setQrTicks((ticks) => ({ ...ticks, [envelope.session]: (ticks[envelope.session] ?? 0) + 1 }));
          if (refreshSoon.current === null) {
            refreshSoon.current = window.setTimeout(() => {
              refreshSoon.current = null;
              void refresh();
            }, 300);
          }
        }
      };
      socket.onclose = (close) => {
        if (stopped) return;
        setLive(close.code === 1008 ? `closed: ${close.reason}` : 'reconnecting');
        if (close.code !== 1008) retry = window.setTimeout(connect, 2000);
      };
    };
    connect();
    return () => {
      stopped = true;
      if (retry !== null) clearTimeout(retry);
      socket?.close();
    };
  }, [api.key]);

  const openPairing = (name: string) => {
    setPairingOf(name);
    setTab('pairing');
  };

  return (
    <div class="shell">
      <header>
        <h1>Switchboard</h1>
        <p class="who" id="who">
          {me.kind} key{me.session ? ` for ${me.session}` : ''}
          {readOnly(me) ? ' · read-only' : ''}
          <span class={`live ${live === 'live' ? 'on' : ''}`} id="live">
            {live}
          </span>
        </p>
        <button type="button" class="link" onClick={onLogout}>
          Forget key
        </button>
      </header>
      <nav aria-label="Sections">
        {tabs.map(([id, label]) => (
          <button type="button" key={id} id={`tab-${id}`} aria-current={tab === id ? 'page' : undefined} onClick={() => setTab(id)}>
            {label}
          </button>
        ))}
      </nav>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <main>
        {tab === 'sessions' && <Sessions api={api} may={may} limit={me.session} sessions={sessions} refresh={refresh} onPair={openPairing} />}
        {tab === 'pairing' && (
          <Pairing
            api={api}
            sessions={sessions}
            selected={pairingOf}
            onSelect={setPairingOf}
            qrTick={pairingOf ? (qrTicks[pairingOf] ?? 0) : 0}
            refresh={refresh}
          />
        )}
        {tab === 'events' && <Monitor events={events} sessions={sessions} />}
        {tab === 'dead' && <DeadLetters api={api} sessions={sessions} mayReplay={may.setting} />}
        {tab === 'send' && <SendMessage api={api} sessions={sessions} />}
        {tab === 'queue' && <SendQueue api={api} sessions={sessions} />}
        {tab === 'keys' && <Keys api={api} sessions={sessions} />}
      </main>
    </div>
  );
}

function readOnly(me: ApiKeySelfDTO): boolean {
  const { send, control, setting, delete: remove, keys } = me.permissions;
  return !send && !control && !setting && !remove && !keys;
}

render(<App />, document.getElementById('app')!);
