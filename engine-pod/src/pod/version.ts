import { readFileSync } from 'node:fs';

/** `environment.version` of every event: this package's version, as the gateway reports its own. */
export const VERSION: string = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** `environment.tier` of every event: the one edition there is. */
export const TIER = 'CORE';
