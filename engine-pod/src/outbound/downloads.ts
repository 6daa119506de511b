import type { OutboundPolicy } from '@switchboard/kube/pod';
import type { Dispatcher } from 'undici';

/**
 * What files sent by URL are downloaded with: an undici agent, or a function that makes one the
 * first time a file is downloaded. undici is about 5 MiB of an engine pod's idle memory
 * (`node bench/dist/all.js engine-pods`), and most pods never download a file.
 */
export type Downloads = Dispatcher | (() => Promise<Dispatcher>);

/** `guardedAgent(policy)`, made (and undici loaded) when first asked for, then the same one every time. */
export function lazyGuardedAgent(policy: OutboundPolicy): () => Promise<Dispatcher> {
  let agent: Promise<Dispatcher> | undefined;
  return () => (agent ??= import('./guarded-agent.js').then(({ guardedAgent }) => guardedAgent(policy)));
}

export function dispatcherOf(downloads: Downloads): Promise<Dispatcher> {
  return typeof downloads === 'function' ? downloads() : Promise.resolve(downloads);
}
