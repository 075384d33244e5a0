import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import { Type } from 'typebox';
import { VERSION } from '../engine/index.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The media type of a body the route reads as a raw stream (an artifact upload). A body schema
     * would make Fastify validate the stream, so the route declares none and this describes it.
     */
    rawBody?: string;
  }
}

/** Where the description and its reference UI are served. */
export const OPENAPI_PATH = '/api/openapi.json';
export const DOCS_PREFIX = '/api/docs';

/**
 * The error envelope exactly as the root error handler writes it (core/http/error-handler.ts):
 * `code` and `message` always, `details` only when the error carries some (validation issues as
 * `[{path, message}]`, a few errors their own facts). There is no `data` in an error.
 */
export const ErrorEnvelope = Type.Object(
  {
    code: Type.String({ description: 'Stable application code (docs/error-codes.md); clients branch on it.' }),
    message: Type.String({ description: 'Human-readable text; clients must not branch on it.' }),
    details: Type.Optional(
      Type.Unknown({ description: 'Validation issues `[{path, message}]`, or facts an error carries.' }),
    ),
  },
  { $id: 'ErrorEnvelope', description: 'Error envelope' },
);

const ERROR_RESPONSE = { $ref: 'ErrorEnvelope#', description: 'Error envelope' };

/** A route's access label (core/auth/guard.ts); named here as a string so http does not import auth. */
interface AccessConfig {
  access?: string;
  interactiveOnly?: boolean;
  rawBody?: string;
}

/** The credentials an access label accepts, as OpenAPI security requirements (public: none). */
function securityOf(config: AccessConfig | undefined): Record<string, string[]>[] {
  const access = config?.access;
  if (!access || access === 'public') return [];
  if (access === 'agent') return [{ agentToken: [] }, { agentBearer: [] }];
  if (config?.interactiveOnly === true) return [{ bearerAuth: [] }];
  return [{ bearerAuth: [] }, { apiKey: [] }];
}

/** The first path segment after `/api` (or the root segment): one tag per area of the API. */
function tagOf(url: string): string {
  const parts = url.split('/').filter(Boolean);
  const area = parts[0] === 'api' ? parts[1] : parts[0];
  return area === 'v1' ? (parts[2] ?? 'v1') : (area ?? 'root');
}

/**
 * Routes added by @fastify/swagger-ui (and @fastify/static under it) declare no access label, and
 * the access guard refuses an unlabelled route as it is added. This hook runs before the guard's
 * (it is registered before the guard) and labels exactly the docs' own routes `public`: they
 * serve the UI's files and the description, which holds no secret.
 */
function labelDocsRoutes(route: RouteOptions): void {
  if (route.url !== DOCS_PREFIX && !route.url.startsWith(`${DOCS_PREFIX}/`)) return;
  const config = (route.config ?? {}) as AccessConfig;
  if (!config.access) route.config = { ...config, access: 'public' } as RouteOptions['config'];
}

/**
 * Adds the shared error envelope to every route's 4xx and 5xx responses, once, here. Fastify
 * serialises errors with it too: it names every field the error handler writes, so nothing is lost.
 */
function addErrorResponses(route: RouteOptions): void {
  const schema = (route.schema ?? {}) as FastifySchema & { response?: Record<string, unknown> };
  const response = { ...(schema.response ?? {}) };
  response['4xx'] ??= ERROR_RESPONSE;
  response['5xx'] ??= ERROR_RESPONSE;
  route.schema = { ...schema, response };
}

/**
 * The OpenAPI 3.1 description, generated from the route schemas by @fastify/swagger. Registered
 * before the access guard and every route plugin: @fastify/swagger and the hooks here see routes
 * only as they are added. The routes that serve it come later, in `openapiDocs`.
 */
export const openapi = fp(
  async function openapi(app: FastifyInstance) {
    app.addHook('onRoute', labelDocsRoutes);
    app.addSchema(ErrorEnvelope);
    app.addHook('onRoute', addErrorResponses);
    await app.register(fastifySwagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'Backplane',
          version: VERSION,
          description:
            'The Backplane REST API. Success: `{code:"OK", message:"success", data}`; errors: the `ErrorEnvelope`.' +
            ' Lists also carry their total in `X-Total-Count`.',
        },
        components: {
          securitySchemes: {
            bearerAuth: {
              type: 'http',
              scheme: 'bearer',
              bearerFormat: 'JWT',
              description: 'The token from POST /api/auth/login (an API key is accepted as `Bearer bpk_...` too).',
            },
            apiKey: {
              type: 'apiKey',
              in: 'header',
              name: 'X-Api-Key',
              description: 'An API key from POST /api/api-keys; refused by account-security routes.',
            },
            agentToken: {
              type: 'apiKey',
              in: 'header',
              name: 'X-Agent-Token',
              description: "A node's agent token: opens the agent routes only.",
            },
            agentBearer: {
              type: 'http',
              scheme: 'bearer',
              bearerFormat: 'bpn_...',
              description:
                "A node's agent token as `Bearer bpn_...` (as BackupX's agents send it): opens the agent routes only.",
            },
          },
        },
      },
      // Shared schemas keep their own names in components.schemas (`ErrorEnvelope`, not `def-0`).
      refResolver: {
        buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
      },
      transform: ({ schema, url, route }) => {
        // The docs' own routes are not part of the API they describe.
        if (url === OPENAPI_PATH || url === DOCS_PREFIX || url.startsWith(`${DOCS_PREFIX}/`))
          return { schema: { ...schema, hide: true }, url };
        const config = route.config as AccessConfig | undefined;
        // For the description only: Fastify validates with the route's own schema, not this copy.
        const raw = config?.rawBody ? { body: { type: 'string', format: 'binary' }, consumes: [config.rawBody] } : {};
        return {
          schema: { tags: [tagOf(url)], ...schema, ...raw, security: securityOf(config) } as FastifySchema,
          url,
        };
      },
    });
  },
  { name: 'backplane-openapi' },
);

/**
 * The description at /api/openapi.json and Swagger UI at /api/docs. Registered after the access
 * guard, so these routes pass through it like any other, labelled `public` (the description
 * holds no secret: what it says is in the repository's docs too).
 */
export const openapiDocs = fp(
  async function openapiDocs(app: FastifyInstance) {
    app.get(OPENAPI_PATH, { config: { access: 'public' }, schema: { hide: true } }, async () => app.swagger());
    // Swagger UI's files come from the package through @fastify/static, never from a CDN; no
    // online validator either (validatorUrl stays null). The UI reads the same description at /api/docs/json.
    // Areas start folded: ~150 operations with their schemas are too many to render at once, and a
    // folded list shows every area at a glance.
    await app.register(fastifySwaggerUi, {
      routePrefix: DOCS_PREFIX,
      uiConfig: { deepLinking: true, docExpansion: 'none' },
    });
  },
  { name: 'backplane-openapi-docs', dependencies: ['backplane-openapi', 'backplane-access-guard'] },
);
