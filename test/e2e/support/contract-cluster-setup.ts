// Global setup of the contract-cluster project: one cluster environment (control plane, NATS, the
// node agent, one operator process) for the whole run, handed to the test files through vitest's
// provide/inject. Each file's gateway is its own process in it (test/contract/cluster-harness.ts).
import { closedPort, freePort } from '@switchboard/testkit';
import type { TestProject } from 'vitest/node';
import { type CertRoot, newCertRoot } from '../../../engine-pod/test/fake-wa/index.js';
import { buildGows } from '../../../engine-pod/test/gows/driver.js';
import { type ClusterEnvironmentInfo, startClusterEnvironment } from './cluster-environment.js';

declare module 'vitest' {
  export interface ProvidedContext {
    clusterEnvironment: ClusterEnvironmentInfo;
    /**
     * Where GOWS engine pods look for the fake WhatsApp server, and its certificate root: the
     * pods' environment is fixed here, so test/contract/gows.test.ts starts its fake with these.
     */
    gowsFake: { readonly port: number; readonly certRoot: CertRoot };
    /** Where NOWEB engine pods look for the fake WhatsApp server (test/contract/noweb-app-state.test.ts starts it there). */
    nowebFake: { readonly port: number };
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // GOWS pods run the Go binary (the gows image's entry point) against a fake the GOWS file starts.
  const [, port, nowebPort, noProxy] = await Promise.all([buildGows(), freePort(), freePort(), closedPort()]);
  const certRoot = newCertRoot();
  const env = await startClusterEnvironment({
    namespace: 'contract',
    engineEnv: {
      SWITCHBOARD_GOWS_WS_URL: `ws://127.0.0.1:${port}/ws/chat`,
      SWITCHBOARD_GOWS_CERT_ROOT_PUBKEY: certRoot.publicKey,
      // Nothing listens there but while the NOWEB file runs (its fake), so other files' NOWEB sessions still fail to connect.
      SWITCHBOARD_NOWEB_WS_URL: `ws://127.0.0.1:${nowebPort}/ws/chat`,
      // WEBJS's chromium never reaches WhatsApp Web from a test: its proxy is a port nothing listens on.
      SWITCHBOARD_CHROMIUM_EXTRA_FLAGS: `--proxy-server=127.0.0.1:${String(noProxy.port)}`,
    },
  });
  try {
    await env.startOperator('contract-operator');
    await env.waitForOperatorLeader('contract-operator');
  } catch (error) {
    await env.stop();
    throw error;
  }
  project.provide('clusterEnvironment', env.info);
  project.provide('gowsFake', { port, certRoot });
  project.provide('nowebFake', { port: nowebPort });
  return () => env.stop();
}
