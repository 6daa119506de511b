import { describe, expect, it } from 'vitest';
import { buildEnginePod } from '../src/reconcile/engine-pod-spec.js';
import { refusalOf } from '../src/reconcile/refusal.js';
import { configuredVersion, podVersion, settingsForVersion } from '../src/rollout/engine-version.js';
import { sessionResource, settings } from './fixtures.js';

describe('engine versions of pods', () => {
  const release = { ...settings, gowsEngineImage: 'ghcr.io/switchboard/engine-gows:1', clientVersions: { NOWEB: '2.3000.1', GOWS: '2.3000.9' } };

  it("the release's version of each engine: its kind's image and its client version", () => {
    expect(configuredVersion('NOWEB', release)).toEqual({ image: 'ghcr.io/switchboard/engine:1', clientVersion: '2.3000.1' });
    expect(configuredVersion('GOWS', release)).toEqual({ image: 'ghcr.io/switchboard/engine-gows:1', clientVersion: '2.3000.9' });
    expect(configuredVersion('WEBJS', release)).toEqual({ image: 'ghcr.io/switchboard/engine-browser:1' });
    expect(configuredVersion('SANDBOX', settings)).toEqual({ image: 'ghcr.io/switchboard/engine:1' });
  });

  it.each([
    { engine: 'NOWEB' as const, version: { image: 'engine:0', clientVersion: '2.3000.7' } },
    { engine: 'NOWEB' as const, version: { image: 'engine:0' } },
    { engine: 'GOWS' as const, version: { image: 'gows:0', clientVersion: '2.3000.8' } },
    { engine: 'WEBJS' as const, version: { image: 'browser:0' } },
  ])('a $engine pod built for a version runs exactly it, read back from the pod', ({ engine, version }) => {
    const pod = buildEnginePod(sessionResource({ spec: { engine } }), settingsForVersion(release, engine, version));
    expect(podVersion(pod, engine)).toEqual(version);
  });

  it("a version for one engine leaves the others' images and client versions as the release says", () => {
    const rolled = settingsForVersion(release, 'NOWEB', { image: 'engine:0' });
    expect(configuredVersion('GOWS', rolled)).toEqual(configuredVersion('GOWS', release));
    expect(configuredVersion('WEBJS', rolled)).toEqual(configuredVersion('WEBJS', release));
  });
});

describe('a pin (spec.engineVersion)', () => {
  it('is checked as the spec is: an image, and a client version only for an engine that presents one', () => {
    const pinned = (engine: string, engineVersion: object) => refusalOf(sessionResource({ spec: { engine, engineVersion } }));
    expect(pinned('NOWEB', { image: 'engine:0', clientVersion: '2.3000.7' })).toBeNull();
    expect(pinned('SANDBOX', { image: 'engine:0' })).toBeNull();
    expect(pinned('SANDBOX', { image: 'engine:0', clientVersion: '2.3000.7' })).toEqual({
      reason: 'InvalidSpec',
      message: 'MessagingSession s1: spec.engineVersion.clientVersion: SANDBOX presents no client version; only NOWEB, GOWS do',
    });
    expect(pinned('NOWEB', { clientVersion: '2.3000.7' })).toMatchObject({
      reason: 'InvalidSpec',
      message: expect.stringContaining('spec.engineVersion.image'),
    });
    expect(pinned('NOWEB', { image: 'engine:0', clientVersion: '2.3000' })).toMatchObject({
      reason: 'InvalidSpec',
      message: expect.stringContaining('spec.engineVersion.clientVersion'),
    });
  });
});
