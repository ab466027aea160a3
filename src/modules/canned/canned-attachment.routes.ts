import { Readable } from 'node:stream';
import type { App } from '../../http/app-type.js';
import { userOf, type userGuard } from '../../access/request-actor.js';
import { streamedBase64Of } from '../../http/json-body.js';
import { badRequestsWhen, errorResponses, IdParams } from '../../http/schemas.js';
import { contentDisposition } from '../media/index.js';
import { SEND_BODY_LIMIT_BYTES } from '../message-content/index.js';
import { CannedAttachmentBody, CannedResponseSchema } from './canned.schemas.js';
import type { CannedService } from './canned.service.js';

/** Most bytes of the attachment body besides `base64`. */
const ENVELOPE_LIMIT_BYTES = 16 * 1024;

/** A canned response's optional file: set, removed, and read by the composer to attach it. */
export function cannedAttachmentRoutes(
  app: App,
  services: { canned: CannedService },
  onRequest: ReturnType<typeof userGuard>,
): void {
  const common = { tags: ['Canned responses'] };
  app.put(
    '/api/canned-responses/:id/attachment',
    {
      onRequest,
      // Room for the largest file a provider takes, streamed to its decoder as it arrives.
      bodyLimit: SEND_BODY_LIMIT_BYTES,
      config: { jsonBody: { streamBase64At: ['base64'], envelopeLimit: ENVELOPE_LIMIT_BYTES } },
      schema: {
        operationId: 'setCannedResponseAttachment',
        ...badRequestsWhen(
          [
            'base64 must decode to at most <size> for <kind>, got <n> bytes',
            'the file is larger than every channel takes for its kind (image 5 MB, video and audio 16 MB, document 100 MB, sticker 500 KB)',
          ],
          ['mimetype must be one of the following values: …', 'a type some channel cannot send'],
        ),
        ...common,
        summary: 'Give a canned response its file (replaces any earlier one)',
        description:
          'Checked as an agent’s media reply is (type and size). Whoever may change the response may set its file.',
        params: IdParams,
        body: CannedAttachmentBody,
        response: { 200: CannedResponseSchema, ...errorResponses(400, 401, 403, 404, 413) },
      },
    },
    async (request) =>
      services.canned.setAttachment(
        userOf(request),
        request.params.id,
        request.body,
        streamedBase64Of(request),
      ),
  );
  app.delete(
    '/api/canned-responses/:id/attachment',
    {
      onRequest,
      schema: {
        operationId: 'removeCannedResponseAttachment',
        ...common,
        summary: 'Take the file off a canned response',
        params: IdParams,
        response: { 200: CannedResponseSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => services.canned.removeAttachment(userOf(request), request.params.id),
  );
  app.get(
    '/api/canned-responses/:id/attachment',
    {
      onRequest,
      schema: {
        operationId: 'getCannedResponseAttachment',
        ...common,
        summary: "A canned response's file",
        description:
          'For whoever may use the response; 404 when it has none. Always as an `attachment` with its file name.',
        params: IdParams,
        response: {
          200: {
            description: 'The file',
            content: { '*/*': { schema: { type: 'string', format: 'binary' } } },
          },
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request, reply) => {
      const file = await services.canned.attachment(userOf(request), request.params.id);
      reply
        .header('content-type', file.mimetype)
        .header('content-length', String(file.size))
        .header('content-disposition', contentDisposition('attachment', file.filename ?? 'file'))
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; sandbox");
      return reply.send(Readable.from(file.chunks()));
    },
  );
}
