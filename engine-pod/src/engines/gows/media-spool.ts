import { constants, mkdtempSync, type ReadStream, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';

export const SPOOL_VARIABLE = 'SWITCHBOARD_GOWS_MEDIA_SPOOL';

/**
 * Where one GOWS child writes the files it receives (whatsmeow downloads to a file, never to
 * memory), and `media.save` names the file for the host to stream into the media store: no file
 * travels through the RPC's lines. The child removes each file once answered; the folder goes
 * with the child.
 */
export class MediaSpool {
  readonly dir = mkdtempSync(join(tmpdir(), 'sb-gows-media-'));

  /**
   * The bytes of a file the child named. Only a file directly in this folder, and no symbolic
   * link: the child names a file, it does not get to read the host's others.
   */
  async open(path: string): Promise<ReadStream> {
    const file = resolve(path);
    if (dirname(file) !== this.dir || basename(file).startsWith('.')) {
      throw new Error(`media.save: path must name a file in ${this.dir}, got ${path}`);
    }
    return (await open(file, constants.O_RDONLY | constants.O_NOFOLLOW)).createReadStream();
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
