import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import type { Access } from './roles.ts';
import { roleAllows } from './roles.ts';
import type { Principal } from './principal.ts';
import { AppError } from '../http/app-error.ts';
import type { Role } from '../db/entities/user.ts';
import { AggregateSql, bool, timeOf } from '../db/aggregate-sql.ts';
import { hashToken, looksLike } from '../security/tokens.ts';
import { sessionIsOpen } from './session-revocation.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The spec's access label; every route must declare one (checked when the route is added). */
    access?: Access;
    /** Account-security routes: interactive JWT only, API keys refused. */
    interactiveOnly?: boolean;
    /** Open to an enrolment-only session: the routes an admin needs to enrol a second factor. */
    enrolment?: boolean;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
  interface FastifyInstance {
    /** Every route with its access label, for diagnostics and the access-label test table. */
    accessTable: { method: string; url: string; access: Access; interactiveOnly: boolean }[];
  }
}

const LABELS: readonly Access[] = ['public', 'auth', 'operator', 'admin', 'agent'];

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' && value.length > 0 ? value.trim() : undefined;
}

function bearer(request: FastifyRequest): string | undefined {
  const auth = header(request, 'authorization');
  if (!auth) return undefined;
  const match = /^Bearer\s+(\S+)$/i.exec(auth);
  return match?.[1];
}

async function agentPrincipal(request: FastifyRequest): Promise<Principal> {
  // X-Agent-Token, or the node token as `Authorization: Bearer bpn_...`. A node token is told apart
  // by its form, so user credentials never open agent routes, and a node token opens no other
  // route: userPrincipal only takes session tokens and API keys.
  const token = header(request, 'x-agent-token') ?? bearer(request);
  if (!token || !looksLike('node', token)) throw new AppError('AUTH_UNAUTHORIZED');
  const hash = hashToken(token);
  const { agentTokens, em } = request.diScope.cradle;
  const known = agentTokens.get(hash);
  if (known) return { kind: 'agent', nodeId: known.nodeId, nodeName: known.nodeName, node: known };
  // The current token, or the one a rotation replaced while its grace period lasts. One
  // hand-written statement: with 10,000 agents the 5 s cache misses on most polls (see AggregateSql).
  const sql = new AggregateSql(em);
  const [node] = await sql.rows<{
    id: number;
    name: string;
    token_hash: string;
    previous_token_expires_at: unknown;
    max_concurrent: number;
    bandwidth_limit: string;
    labels: string;
  }>(
    `select id, name, token_hash, previous_token_expires_at, max_concurrent, bandwidth_limit, labels from nodes
      where token_hash = ? or (previous_token_hash = ? and previous_token_expires_at > ?) limit 1`,
    [hash, hash, sql.time(new Date())],
  );
  if (!node) throw new AppError('AUTH_UNAUTHORIZED');
  const facts = {
    nodeId: Number(node.id),
    nodeName: node.name,
    maxConcurrent: Number(node.max_concurrent),
    bandwidthLimit: node.bandwidth_limit,
    labels: node.labels,
  };
  agentTokens.set(hash, facts, node.token_hash === hash ? null : timeOf(node.previous_token_expires_at));
  return { kind: 'agent', nodeId: facts.nodeId, nodeName: facts.nodeName, node: facts };
}

async function userPrincipal(request: FastifyRequest): Promise<Principal> {
  const token = bearer(request);
  const key = header(request, 'x-api-key') ?? (token && looksLike('apiKey', token) ? token : undefined);
  if (key) return request.diScope.cradle.apiKeys.authenticate(key);
  if (!token) throw new AppError('AUTH_UNAUTHORIZED');
  const claims = await request.diScope.cradle.sessionTokens.verify(token);
  // A token without an id has no session row (issued before sessions were recorded): it opens nothing.
  if (!claims?.sessionId) throw new AppError('AUTH_UNAUTHORIZED');
  // Re-checked on every request: logging out or revoking the session, disabling the user, changing the role
  // or the password revokes at once, on every master. One hand-written statement (a tenth of an ORM
  // findOne; see AggregateSql) over two primary-key/unique lookups: every request pays it.
  const sql = new AggregateSql(request.diScope.cradle.em);
  const [row] = await sql.rows<{
    id: number;
    username: string;
    role: Role;
    disabled: unknown;
    token_version: number;
    kept_session_id: string | null;
    session_row: number;
    revoked_at: unknown;
    last_used_at: unknown;
  }>(
    'select u.id, u.username, u.role, u.disabled, u.token_version, u.kept_session_id,' +
      ' s.id as session_row, s.revoked_at, s.last_used_at' +
      ' from users u join user_sessions s on s.token_id = ? and s.user_id = u.id where u.id = ?',
    [claims.sessionId, claims.userId],
  );
  const user = row && {
    id: Number(row.id),
    username: row.username,
    role: row.role,
    disabled: bool(row.disabled),
    tokenVersion: Number(row.token_version),
    keptSessionId: row.kept_session_id,
  };
  if (!user || user.disabled || timeOf(row.revoked_at) !== null || !sessionIsOpen(user, claims))
    throw new AppError('AUTH_UNAUTHORIZED');
  await touchSession(sql, Number(row.session_row), timeOf(row.last_used_at));
  if (claims.enrolmentOnly && request.routeOptions.config.enrolment !== true)
    throw new AppError('AUTH_MFA_ENROLLMENT_REQUIRED');
  return {
    kind: 'user',
    userId: user.id,
    username: user.username,
    role: user.role,
    ...(claims.sessionId ? { sessionId: claims.sessionId } : {}),
  };
}

/** `last_used_at` is written at most once a minute per session: a write per request would cost more than the read. */
const TOUCH_EVERY_MS = 60_000;

async function touchSession(sql: AggregateSql, sessionRow: number, lastUsedAt: Date | null): Promise<void> {
  const now = new Date();
  if (lastUsedAt && now.getTime() - lastUsedAt.getTime() < TOUCH_EVERY_MS) return;
  await sql.run('update user_sessions set last_used_at = ? where id = ?', [sql.time(now), sessionRow]);
}

async function authenticateRequest(this: FastifyInstance, request: FastifyRequest): Promise<void> {
  const { access, interactiveOnly } = request.routeOptions.config;
  // Unmatched requests (404 handler) carry no label and need no principal.
  if (!access || access === 'public') return;
  if (access === 'agent') {
    request.principal = await agentPrincipal(request);
    return;
  }
  const principal = await userPrincipal(request);
  request.principal = principal;
  if (principal.kind !== 'user' && principal.kind !== 'apiKey') throw new AppError('AUTH_UNAUTHORIZED');
  if (interactiveOnly && principal.kind === 'apiKey') throw new AppError('AUTH_INTERACTIVE_ONLY');
  if (!roleAllows(principal.role, access)) throw new AppError('AUTH_FORBIDDEN');
}

function accessOf(route: RouteOptions): { access: Access; interactiveOnly: boolean } {
  const config = route.config as { access?: Access; interactiveOnly?: boolean } | undefined;
  const access = config?.access;
  if (!access || !LABELS.includes(access)) {
    throw new Error(
      `route ${String(route.method)} ${route.url} has no access label; add config: { access: ${LABELS.map((l) => `'${l}'`).join(' | ')} }`,
    );
  }
  return { access, interactiveOnly: config?.interactiveOnly === true };
}

/** The access guard: one declarative label per route, enforced in one place. */
export const accessGuard = fp(
  async function accessGuard(app: FastifyInstance) {
    app.decorateRequest('principal', null);
    const table: FastifyInstance['accessTable'] = [];
    app.decorate('accessTable', table);
    app.addHook('onRoute', function requireAccessLabel(route) {
      const label = accessOf(route);
      for (const method of [route.method].flat()) {
        if (method !== 'HEAD') table.push({ method, url: route.url, ...label });
      }
    });
    app.addHook('onRequest', authenticateRequest);
  },
  { name: 'backplane-access-guard', dependencies: ['backplane-request-scope'] },
);
