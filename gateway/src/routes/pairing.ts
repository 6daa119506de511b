import { Base64File, QRCodeValue, QrQuery, RequestCodeRequest, RequestCodeResponse, SessionPathParams } from '@switchboard/protocol';
import type { FastifyInstance } from 'fastify';
import { sessionAccess } from '../auth/access.js';
import QRCode from 'qrcode';
import { z } from 'zod';
import type { RouteDeps } from './context.js';
import { typed } from './context.js';
import { sessionErrors } from './responses.js';

const tags = ['Pairing'];

/** Spec 4.1: pairing by QR code and by phone code. */
export async function pairingRoutes(app: FastifyInstance, { sessions }: RouteDeps): Promise<void> {
  const r = typed(app);

  r.get('/api/:session/auth/qr', {
    config: sessionAccess('control'),
    schema: {
      tags,
      summary: 'The QR code to scan: a PNG (format=image) or its value (format=raw)',
      description: 'While SCAN_QR_CODE. With format=image and `Accept: application/json`, the PNG comes base64-encoded as {mimetype, data}.',
      params: SessionPathParams,
      querystring: QrQuery,
      response: {
        200: {
          description: 'The QR code',
          content: {
            'image/png': { schema: z.string().meta({ format: 'binary' }) },
            'application/json': { schema: z.union([QRCodeValue, Base64File]) },
          },
        },
        ...sessionErrors,
      },
    },
    handler: async (request, reply) => {
      const { value } = (await sessions.command(request.params.session, { op: 'auth.qr' })) as QRCodeValue;
      if (request.query.format === 'raw') return reply.type('application/json').send({ value });
      const png = await QRCode.toBuffer(value, { type: 'png', errorCorrectionLevel: 'M', margin: 2, scale: 6 });
      if (wantsJson(request.headers.accept)) {
        return reply.type('application/json').send({ mimetype: 'image/png', data: png.toString('base64') });
      }
      // OpenAPI declares the PNG as a binary string; on the wire it is the buffer's bytes.
      return reply.type('image/png').send(png as unknown as string);
    },
  });

  r.post('/api/:session/auth/request-code', {
    config: sessionAccess('control'),
    schema: {
      tags,
      summary: 'Pair by phone number: returns the code to enter on the phone',
      params: SessionPathParams,
      body: RequestCodeRequest,
      response: { 201: RequestCodeResponse, ...sessionErrors },
    },
    handler: async (request, reply) => {
      const result = await sessions.command(request.params.session, { op: 'auth.requestCode', args: request.body });
      return reply.code(201).send(result as z.infer<typeof RequestCodeResponse>);
    },
  });
}

function wantsJson(accept: string | undefined): boolean {
  return accept !== undefined && accept.includes('application/json') && !accept.includes('image/png');
}
