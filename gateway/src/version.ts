import { readFileSync } from 'node:fs';

/** The product version (`environment.version` of every event), from this package's manifest. */
export const VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** `environment.tier` of every event: the one edition there is. */
export const TIER = 'CORE';
