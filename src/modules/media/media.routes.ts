import { Readable } from 'node:stream';
import type { App } from '../../http/app-type.js';
import { userGuard, userOf, type UserGuardDeps } from '../../access/request-actor.js';
import { errorResponses, IdParams } from '../../http/schemas.js';
import { parseRange, type MediaService } from './media.service.js';

/**
 * The file's own type is served (what the customer or agent sent: image/png, application/pdf,
 * audio/ogg, video/mp4, ...), except types a browser could run (HTML, XML, SVG, scripts), which are
 * served as application/octet-stream: so any type, said as the `*\/*` range.
 */
const FILE = {
  '*/*': {
    schema: {
      type: 'string',
      format: 'binary',
      description:
        "The file's own type (image/jpeg, image/png, application/pdf, audio/ogg, video/mp4, ...); HTML, XML, SVG and scripts as application/octet-stream",
    },
  },
};

/** What these routes use of the services. */
export type MediaRoutesDeps = UserGuardDeps & {
  media: MediaService;
};

/** The file of a message (a customer's download, an agent's attachment) for agents who may see the chat. */
export function mediaRoutes(app: App, services: MediaRoutesDeps): void {
  app.get(
    '/api/messages/:id/media',
    {
      onRequest: userGuard(services),
      schema: {
        tags: ['Chats'],
        security: [{ bearer: [] }],
        operationId: 'getMessageMedia',
        summary: "A message's file",
        description:
          'For anyone who may see the chat (as its messages). Pictures, audio and video are answered `inline`; ' +
          'everything else as an `attachment` with its file name. One `Range: bytes=` span is honoured (206). ' +
          "A message without a stored file — text, a customer's file not downloaded (yet), another account's " +
          'message — is a 404.',
        params: IdParams,
        response: {
          200: { description: 'The whole file', content: FILE },
          206: { description: 'The requested range', content: FILE },
          ...errorResponses(400, 401, 404, 416),
        },
      },
    },
    async (request, reply) => {
      const answer = await services.media.open(userOf(request), request.params.id);
      const { file } = answer;
      const range = parseRange(request.headers.range, file.size);
      reply
        .header('content-type', answer.contentType)
        .header('content-disposition', answer.disposition)
        .header('x-content-type-options', 'nosniff')
        .header('accept-ranges', 'bytes')
        // Opened on its own (a new tab), the file is a document of this origin: it may run nothing.
        .header('content-security-policy', "default-src 'none'; img-src 'self'; media-src 'self'; sandbox");
      if (range) {
        reply
          .status(206)
          .header('content-range', `bytes ${range.start}-${range.end}/${file.size}`)
          .header('content-length', String(range.end - range.start + 1));
      } else {
        reply.header('content-length', String(file.size));
      }
      return reply.send(Readable.from(services.media.read(file, range ?? undefined)));
    },
  );
}
