import { describe, expect, it } from 'vitest';
import { AppConfig, BUILT_ENGINES, unsupportedCallRejection, unsupportedCallRejectionMessage } from '../src/index.js';

// The calls app's reject rules on an engine that cannot decline a call are refused (a 422 in the
// gateway). Every built engine declines calls; the check is held here for one that could not.

const calls = (config: unknown, enabled = true) => AppConfig.parse({ app: 'calls', enabled, config });

describe('calls-app reject rules against what an engine can do', () => {
  it('every built engine declines calls, so no reject rule is refused', () => {
    const rejecting = [calls({ dm: { reject: true }, group: { reject: true } })];
    for (const engine of BUILT_ENGINES) {
      expect(unsupportedCallRejection(engine, rejecting), engine).toEqual([]);
    }
  });

  it('on an engine that could not: each enabled rule that rejects, as a field path; a disabled app or a quiet rule asks nothing', () => {
    const apps = [
      calls({ dm: { reject: true }, group: { reject: false } }),
      calls({}, false),
      calls({ dm: { reject: false }, group: { reject: true } }),
    ];
    const fields = unsupportedCallRejection('WEBJS', apps, false);
    expect(fields).toEqual(['apps[0].config.dm.reject', 'apps[2].config.group.reject']);
    expect(unsupportedCallRejectionMessage('WEBJS', fields)).toBe(
      'engine WEBJS cannot decline calls, so the calls app cannot reject them (apps[0].config.dm.reject, apps[2].config.group.reject); ' +
        'set reject to false or pick an engine that can (SANDBOX, NOWEB, WEBJS, GOWS, WPP)',
    );
  });
});
