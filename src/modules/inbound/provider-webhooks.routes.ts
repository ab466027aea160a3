import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { App } from '../../http/app-type.js';
import { errorResponses } from '../../http/schemas.js';
import type { ProviderWebhooksService } from './provider-webhooks.service.js';

/** Meta sends up to 3 MB per delivery; a little more is accepted, anything beyond is a 413. */
export const WEBHOOK_BODY_LIMIT = 4 * 1024 * 1024;

const Params = Type.Object(
  { channelId: Type.String({ description: 'Id of a whatsapp-cloud channel' }) },
  { additionalProperties: false },
);

const VerifyQuery = Type.Object({
  'hub.mode': Type.Optional(Type.String({ description: '`subscribe`' })),
  'hub.verify_token': Type.Optional(Type.String({ description: "The channel's verify token" })),
  'hub.challenge': Type.Optional(Type.String({ description: 'Echoed back when the token matches' })),
});

/** What these routes use of the services. */
export type ProviderWebhookRoutesDeps = {
  providerWebhooks: ProviderWebhooksService;
};

/** Meta's callback URL of a WhatsApp channel: `/webhooks/whatsapp/<channel id>`. */
export function whatsappWebhookRoutes(app: App, services: ProviderWebhookRoutesDeps): void {
  const common = { tags: ['Provider webhooks'] };
  app.get(
    '/webhooks/whatsapp/:channelId',
    {
      schema: {
        operationId: 'verifyWhatsAppWebhook',
        ...common,
        summary: "Meta's webhook verification handshake",
        description:
          "Answers 200 with `hub.challenge` as text/plain when `hub.mode` is `subscribe` and `hub.verify_token` equals the channel's verify token; 403 otherwise.",
        params: Params,
        querystring: VerifyQuery,
        response: {
          200: {
            description: 'The `hub.challenge` received',
            content: { 'text/plain': { schema: Type.String() } },
          },
          ...errorResponses(403, 404, 503),
        },
      },
    },
    async (request, reply) => {
      const challenge = await services.providerWebhooks.verify(
        'whatsapp-cloud',
        request.params.channelId,
        request.query,
      );
      return reply.type('text/plain; charset=utf-8').send(challenge);
    },
  );

  // The signature covers the exact bytes Meta sent, so this route reads its body raw: its own
  // encapsulated parser, leaving the JSON parser of every other route as it is.
  void app.register(async (scope) => {
    const raw = scope.withTypeProvider<TypeBoxTypeProvider>();
    raw.removeAllContentTypeParsers();
    raw.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT }, (_req, body, done) =>
      done(null, body),
    );
    raw.post(
      '/webhooks/whatsapp/:channelId',
      {
        bodyLimit: WEBHOOK_BODY_LIMIT,
        schema: {
          operationId: 'receiveWhatsAppWebhook',
          ...common,
          summary: 'A WhatsApp webhook delivery (messages and statuses)',
          description: `Checks \`X-Hub-Signature-256\` (HMAC-SHA256 of the raw body with the channel's app secret; 401 when missing or wrong), stores the delivery and queues its processing, then answers 200. A signed body that is not JSON is a 400.`,
          params: Params,
          response: {
            200: Type.Object({ status: Type.Literal('ok') }),
            ...errorResponses(400, 401, 404, 413, 503),
          },
        },
      },
      async (request) => {
        const header = request.headers[services.providerWebhooks.signatureHeader('whatsapp-cloud')];
        const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        await services.providerWebhooks.receive(
          'whatsapp-cloud',
          request.params.channelId,
          body,
          typeof header === 'string' ? header : undefined,
        );
        return { status: 'ok' as const };
      },
    );
  });
}
