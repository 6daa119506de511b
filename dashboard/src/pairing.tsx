import type { PasskeyChallenge, SessionInfo } from '@switchboard/protocol';
import { useEffect, useRef, useState } from 'preact/hooks';
import { type Api, enc } from './api.js';

/** How long a QR lasts until the first renewal is seen; then the measured interval. */
const DEFAULT_QR_PERIOD_MS = 20_000;

interface Props {
  api: Api;
  sessions: SessionInfo[];
  selected: string | null;
  onSelect: (name: string) => void;
  /** Changes each time the session's QR is renewed (a session.status SCAN_QR_CODE event). */
  qrTick: number;
  refresh: () => Promise<void>;
}

/** QR (replaced as it rotates, with a countdown), phone code, passkey steps; WORKING when it happens. */
export function Pairing({ api, sessions, selected, onSelect, qrTick, refresh }: Props) {
  const session = sessions.find((s) => s.name === selected) ?? null;
  const status = session?.status;
  return (
    <section aria-labelledby="pairing-title">
      <h2 id="pairing-title">Pairing</h2>
      <label>
        Session{' '}
        <select id="pair-session" value={selected ?? ''} onChange={(e) => onSelect(e.currentTarget.value)}>
          <option value="" disabled>
            choose
          </option>
          {sessions.map((s) => (
            <option key={s.name} value={s.name}>
              {s.name} ({s.status})
            </option>
          ))}
        </select>
      </label>
      {session && (
        <div class="pairing">
          <p>
            Status:{' '}
            <strong id="pair-status" class={`status status-${session.status}`} role="status" aria-live="polite">
              {session.status}
            </strong>
          </p>
          {status === 'WORKING' && (
            <p class="working" id="working">
              WORKING{session.me ? `: paired as ${session.me.pushName} (${session.me.id})` : ''}
            </p>
          )}
          {status === 'STOPPED' && (
            <button type="button" onClick={() => void api.post(`/api/sessions/${enc(session.name)}/start`).then(refresh)}>
              Start it to pair
            </button>
          )}
          {status === 'SCAN_QR_CODE' && (
            <>
              <Qr api={api} session={session.name} tick={qrTick} />
              <PhoneCode api={api} session={session.name} />
            </>
          )}
          {status === 'PASSKEY_REQUIRED' && <Passkey api={api} session={session.name} />}
          {status === 'PASSKEY_CONFIRMATION_REQUIRED' && <PasskeyConfirmation api={api} session={session.name} />}
          {status === 'FAILED' && <p class="error">{session.reason ?? 'The session failed.'}</p>}
        </div>
      )}
    </section>
  );
}

function Qr({ api, session, tick }: { api: Api; session: string; tick: number }) {
  const [image, setImage] = useState<string | null>(null);
  const [error, setError] = useState('');
  const [left, setLeft] = useState(0);
  const shownAt = useRef(0);
  const period = useRef(DEFAULT_QR_PERIOD_MS);

  useEffect(() => {
    let current = true;
    api.call<{ mimetype: string; data: string }>('GET', `/api/${enc(session)}/auth/qr?format=image`).then(
      ({ mimetype, data }) => {
        if (!current) return;
        const now = Date.now();
        // A renewal tells how long this engine's codes last; the first one can only be guessed.
        if (shownAt.current !== 0 && tick > 0) period.current = Math.max(1000, now - shownAt.current);
        shownAt.current = now;
        setImage(`data:${mimetype};base64,${data}`);
        setError('');
      },
      (failure: unknown) => current && setError((failure as Error).message),
    );
    return () => {
      current = false;
    };
  }, [session, tick]);

  useEffect(() => {
    const timer = setInterval(() => setLeft(Math.max(0, Math.round((shownAt.current + period.current - Date.now()) / 1000))), 500);
    return () => clearInterval(timer);
  }, []);

  return (
    <div class="qr">
      {image && (
        <img id="qr" src={image} alt={`QR code to pair session ${session}: scan it with the phone's linked devices screen`} data-tick={tick} />
      )}
      <p id="qr-countdown" aria-live="off">
        {image ? `Renews in about ${left} s; a new code replaces it here.` : 'Waiting for the code…'}
      </p>
      {error && <p class="error">{error}</p>}
    </div>
  );
}

function PhoneCode({ api, session }: { api: Api; session: string }) {
  const [phone, setPhone] = useState('');
  const [code, setCode] = useState('');
  const [error, setError] = useState('');
  return (
    <form
      class="inline"
      onSubmit={(event) => {
        event.preventDefault();
        api.post<{ code: string }>(`/api/${enc(session)}/auth/request-code`, { phoneNumber: phone }).then(
          (answer) => (setCode(answer.code), setError('')),
          (failure: unknown) => setError((failure as Error).message),
        );
      }}
    >
      <label>
        Or pair by phone number{' '}
        <input id="phone" inputMode="tel" placeholder="+15551234567" value={phone} onInput={(e) => setPhone(e.currentTarget.value)} />
      </label>
      <button type="submit" id="request-code">
        Get code
      </button>
      {code && (
        <p>
          Enter <strong id="phone-code">{code}</strong> on the phone.
        </p>
      )}
      {error && <p class="error">{error}</p>}
    </form>
  );
}

function Passkey({ api, session }: { api: Api; session: string }) {
  const [challenge, setChallenge] = useState<PasskeyChallenge | null>(null);
  const [assertion, setAssertion] = useState('');
  const [message, setMessage] = useState('');
  useEffect(() => {
    api
      .get<PasskeyChallenge>(`/api/${enc(session)}/auth/passkey/challenge`)
      .then(setChallenge, (failure: unknown) => setMessage((failure as Error).message));
  }, [session]);
  return (
    <div class="passkey">
      <p>
        The phone asks for a passkey. Sign this challenge on a device that holds the passkey for {challenge?.rpId ?? 'the service'}, then paste the
        assertion.
      </p>
      {challenge && <pre id="passkey-challenge">{JSON.stringify(challenge, null, 2)}</pre>}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          let body: unknown;
          try {
            body = JSON.parse(assertion);
          } catch {
            setMessage('the assertion must be JSON');
            return;
          }
          api.post(`/api/${enc(session)}/auth/passkey`, body).then(
            () => setMessage('sent'),
            (failure: unknown) => setMessage((failure as Error).message),
          );
        }}
      >
        <label for="assertion">Assertion (JSON)</label>
        <textarea id="assertion" rows={5} value={assertion} onInput={(e) => setAssertion(e.currentTarget.value)} />
        <button type="submit">Send assertion</button>
      </form>
      {message && <p class="note">{message}</p>}
    </div>
  );
}

function PasskeyConfirmation({ api, session }: { api: Api; session: string }) {
  const [code, setCode] = useState('');
  const [message, setMessage] = useState('');
  useEffect(() => {
    api.get<{ code: string }>(`/api/${enc(session)}/auth/passkey/confirmation`).then(
      (answer) => setCode(answer.code),
      (failure: unknown) => setMessage((failure as Error).message),
    );
  }, [session]);
  return (
    <div class="passkey">
      <p>
        Check that the phone shows <strong id="passkey-code">{code || '…'}</strong>, then confirm.
      </p>
      <button
        type="button"
        onClick={() =>
          void api.post(`/api/${enc(session)}/auth/passkey/confirm`).then(
            () => setMessage('confirmed'),
            (failure: unknown) => setMessage((failure as Error).message),
          )
        }
      >
        Confirm
      </button>
      {message && <p class="note">{message}</p>}
    </div>
  );
}
