import {
  MessageFileRequest,
  MessageImageRequest,
  MessageLinkCustomPreviewRequest,
  MessageLinkPreviewRequest,
  MessageRecord,
  MessageVideoRequest,
  MessageVoiceRequest,
} from '@switchboard/protocol';
import type { FastifyInstance } from 'fastify';
import { chattingRoute, DEFAULT_MEDIA_BODY_LIMIT } from './chatting-route.js';
import type { RouteDeps } from './context.js';

const FILE = 'The file by `url` (the engine downloads it) or as base64 `data`.';

/** Spec 4.5: media sends and link previews. Every one answers 201 with the message record. */
export async function chattingMediaRoutes(app: FastifyInstance, deps: RouteDeps): Promise<void> {
  const { mediaBodyLimit } = deps;
  const media = { method: 'POST', status: 201, response: MessageRecord, bodyLimit: mediaBodyLimit ?? DEFAULT_MEDIA_BODY_LIMIT, paced: true } as const;

  chattingRoute(app, deps, {
    ...media,
    url: '/api/sendImage',
    summary: 'Send an image',
    description: FILE,
    body: MessageImageRequest,
    command: (args) => ({ op: 'send.media', args: { kind: 'image', ...args } }),
  });

  chattingRoute(app, deps, {
    ...media,
    url: '/api/sendFile',
    summary: 'Send a file (document)',
    description: FILE,
    body: MessageFileRequest,
    command: (args) => ({ op: 'send.media', args: { kind: 'file', ...args } }),
  });

  chattingRoute(app, deps, {
    ...media,
    url: '/api/sendVoice',
    summary: 'Send a voice message',
    description: `${FILE} The MIME type defaults to \`audio/ogg; codecs=opus\`.`,
    body: MessageVoiceRequest,
    command: (args) => ({ op: 'send.media', args: { kind: 'voice', ...args } }),
  });

  chattingRoute(app, deps, {
    ...media,
    url: '/api/sendVideo',
    summary: 'Send a video',
    description: `${FILE} The MIME type defaults to \`video/mp4\`; \`asNote\` sends a round video note.`,
    body: MessageVideoRequest,
    command: (args) => ({ op: 'send.media', args: { kind: 'video', ...args } }),
  });

  chattingRoute(app, deps, {
    ...media,
    url: '/api/send/link-custom-preview',
    summary: 'Send a text with a custom link preview',
    description: '`text` must include `preview.url`. The preview image, if any, by `url` or base64 `data`.',
    body: MessageLinkCustomPreviewRequest,
    command: (args) => ({ op: 'send.linkCustomPreview', args }),
  });

  chattingRoute(app, deps, {
    method: 'POST',
    status: 201,
    response: MessageRecord,
    paced: true,
    url: '/api/sendLinkPreview',
    summary: 'Send a link with a preview',
    description: 'Deprecated: use POST /api/send/link-custom-preview. The text is `url`; the preview is titled `title`.',
    deprecated: true,
    body: MessageLinkPreviewRequest,
    command: ({ url, title, ...target }) => ({
      op: 'send.linkCustomPreview',
      args: { ...target, text: url, linkPreviewHighQuality: false, preview: { url, title, description: '' } },
    }),
  });
}
