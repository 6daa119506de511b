import { stripVTControlCharacters } from 'node:util';

/** C0 and C1 control characters and DEL: what is left of a sequence once Node has removed the whole ones. */
// eslint-disable-next-line no-control-regex -- matching control characters is this pattern's job
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * Text from the gateway as the terminal may show it. An account's name (`pushName`) and a failure
 * reason come from the messaging service or the engine, and a name can carry escape sequences that
 * would move the cursor, clear the screen, retitle the window or hide what follows: whole
 * sequences go (Node's own parser of them), then any control character left.
 */
export function printable(text: string): string {
  return stripVTControlCharacters(text).replace(CONTROL, '');
}
