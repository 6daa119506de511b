import { convertMedia, type ConversionTarget, DEFAULT_CONVERSION_LIMITS, guardedAgent, resolveFile } from '@switchboard/engine-pod';
import { Base64File, type FileInput, SessionPathParams, VideoFileDTO, VoiceFileDTO } from '@switchboard/protocol';
import type { Dispatcher } from 'undici';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { sessionAccess } from '../auth/access.js';
import { type ConversionQueue, callerOf } from '../conversions/conversion-queue.js';
import { DEFAULT_MEDIA_BODY_LIMIT } from './chatting-route.js';
import type { RouteDeps } from './context.js';
import { typed } from './context.js';
import { conversionRefused, sessionErrors } from './responses.js';

const tags = ['Media'];

/** Conversions in the gateway wait for no engine pod (a command waits 10 s at most), so they may take longer, but not for ever. */
const LIMITS = { ...DEFAULT_CONVERSION_LIMITS, timeoutMs: 60_000 };

/**
 * A file of a request (`FileInput`, at body field `field`) converted by the gateway and given
 * inline, for a command that then carries the converted bytes: ffmpeg runs where the gateway runs
 * (its image has it), never in an engine pod. It waits its turn in `conversions`, where the
 * download of a file by url is part of the conversion (429 when the queue or the caller's share
 * of it is full).
 */
export async function convertedFileInput(
  request: FastifyRequest,
  conversions: ConversionQueue,
  file: FileInput,
  target: ConversionTarget,
  field: string,
  downloads: Dispatcher,
): Promise<FileInput> {
  const converted = await conversions.run(callerOf(request), async () =>
    convertMedia(await resolveFile(file, field, downloads), target, field, LIMITS),
  );
  return { mimetype: converted.mimetype, filename: converted.filename, data: converted.data.toString('base64') };
}

/**
 * Media conversion with ffmpeg (engine-pod/src/media/convert.ts), in the gateway itself: it needs
 * no engine and its answer can be larger than a command's. The file by `url` is fetched through
 * the outbound address policy, as a send's file is. Answers the converted bytes, or
 * `{mimetype, data}` (base64) to a client that accepts only JSON.
 */
export async function mediaConvertRoutes(app: FastifyInstance, { sessions, outbound, mediaBodyLimit, conversions }: RouteDeps): Promise<void> {
  const r = typed(app);
  const downloads = guardedAgent(outbound);
  app.addHook('onClose', async () => downloads.close());

  const targets: readonly [ConversionTarget, typeof VoiceFileDTO, string, string][] = [
    ['voice', VoiceFileDTO, 'audio/ogg; codecs=opus', 'Convert audio to a voice note (OGG/Opus)'],
    ['video', VideoFileDTO, 'video/mp4', 'Convert a video to MP4 (H.264/AAC)'],
  ];
  for (const [target, body, mimetype, summary] of targets) {
    r.post(`/api/:session/media/convert/${target}`, {
      config: sessionAccess('use'),
      bodyLimit: mediaBodyLimit ?? DEFAULT_MEDIA_BODY_LIMIT,
      schema: {
        tags,
        summary,
        description: `With ffmpeg. The file by \`url\` (downloaded through the outbound address policy) or base64 \`data\`. Answers the ${mimetype} bytes, or {mimetype, data} with \`Accept: application/json\`.`,
        params: SessionPathParams,
        body,
        response: {
          200: {
            description: 'The converted file',
            content: { [mimetype]: { schema: z.string().meta({ format: 'binary' }) }, 'application/json': { schema: Base64File } },
          },
          ...sessionErrors,
          429: conversionRefused,
        },
      },
      handler: async (request, reply) => {
        await sessions.get(request.params.session, { expandApps: false });
        const { url, data } = request.body;
        const field = url ? 'url' : 'data';
        const source = url ? { url } : { data: data! };
        const converted = await conversions.run(callerOf(request), async () =>
          convertMedia(await resolveFile(source, '', downloads), target, field, LIMITS),
        );
        if (wantsJson(request.headers.accept, mimetype)) {
          return reply.type('application/json').send({ mimetype: converted.mimetype, data: converted.data.toString('base64') });
        }
        // OpenAPI declares the file as a binary string; on the wire it is the buffer's bytes.
        return reply.type(converted.mimetype).send(converted.data as unknown as string);
      },
    });
  }
}

function wantsJson(accept: string | undefined, mimetype: string): boolean {
  return accept !== undefined && accept.includes('application/json') && !accept.includes(mimetype.split(';')[0]!);
}
