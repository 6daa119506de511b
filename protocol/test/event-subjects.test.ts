import { describe, expect, it } from 'vitest';
import { eventMatchesSubject, eventSubjectSession, SUBJECTS } from '../src/cluster.js';

describe('event subjects and the session an envelope claims', () => {
  it('reads the session from an event subject, and nothing from any other subject', () => {
    expect(eventSubjectSession(SUBJECTS.event('alpha', 'message.any'))).toBe('alpha');
    expect(eventSubjectSession('sb.evt.alpha')).toBeNull();
    expect(eventSubjectSession('sb.evt..message')).toBeNull();
    expect(eventSubjectSession('sb.cmd.alpha')).toBeNull();
  });

  it('agrees only when the body names the subject’s session exactly', () => {
    expect(eventMatchesSubject('sb.evt.alpha.session.status', 'alpha')).toBe(true);
    expect(eventMatchesSubject('sb.evt.alpha.session.status', 'beta')).toBe(false);
    // A prefix of the subject's session, or one that runs into the event name, is another session.
    expect(eventMatchesSubject('sb.evt.alpha.message', 'alph')).toBe(false);
    expect(eventMatchesSubject('sb.evt.alpha.message', 'alpha.message')).toBe(false);
  });
});
