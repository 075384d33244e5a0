import type { EntityManager } from '@mikro-orm/core';
import { randomBytes } from 'node:crypto';
import { InstallTokenEntity } from '../../db/entities/install-token.ts';
import { NodeEntity, type Node } from '../../db/entities/node.ts';
import { AppError } from '../../http/app-error.ts';
import { generateToken, hashToken, looksLike } from '../../security/tokens.ts';
import type { NodeService } from '../nodes/node-service.ts';
import { DEFAULT_TTL_MINUTES } from './install-schemas.ts';

/** Unconsumed, unexpired installer tokens one node may have at a time. */
export const MAX_OPEN_INSTALL_TOKENS = 5;
/** How long the enrollment code a consumed installer carries stays valid. */
export const ENROLL_TTL_MS = 15 * 60_000;
const ENROLL_PREFIX = 'bpe_';

/** `bpe_` + 64 hex: the one-time enrollment code an installer script exchanges for the node token. */
export function generateEnrollCode(): string {
  return `${ENROLL_PREFIX}${randomBytes(32).toString('hex')}`;
}

/**
 * One-time agent installers. Both secrets (install token, enrollment code) are stored as SHA-256
 * only and consumed with a single conditional UPDATE, so concurrent requests cannot both win.
 */
export class InstallService {
  readonly #em: EntityManager;
  readonly #nodes: NodeService;

  constructor({ em, nodes }: { em: EntityManager; nodes: NodeService }) {
    this.#em = em;
    this.#nodes = nodes;
  }

  async create(nodeId: number, ttlMinutes: number | undefined, createdBy: string): Promise<{ node: Node; token: string; expiresAt: Date }> {
    const node = await this.#em.findOne(NodeEntity, { id: nodeId });
    if (!node) throw new AppError('NODE_NOT_FOUND');
    const now = new Date();
    const open = await this.#em.count(InstallTokenEntity, { nodeId, consumedAt: null, expiresAt: { $gt: now } });
    if (open >= MAX_OPEN_INSTALL_TOKENS) throw new AppError('INSTALL_TOKEN_RATE_LIMITED');
    const token = generateToken('install');
    const expiresAt = new Date(now.getTime() + (ttlMinutes ?? DEFAULT_TTL_MINUTES) * 60_000);
    this.#em.create(InstallTokenEntity, { nodeId, tokenHash: hashToken(token), expiresAt, createdBy: createdBy.slice(0, 64) });
    await this.#em.flush();
    return { node, token, expiresAt };
  }

  /** Consumes an installer token once; 404 INSTALL_TOKEN_INVALID for unknown, used or expired ones alike. */
  async consume(token: string): Promise<{ node: Node; enrollCode: string; enrollExpiresAt: Date }> {
    if (!looksLike('install', token)) throw new AppError('INSTALL_TOKEN_INVALID');
    const tokenHash = hashToken(token);
    const now = new Date();
    const enrollCode = generateEnrollCode();
    const enrollExpiresAt = new Date(now.getTime() + ENROLL_TTL_MS);
    const claimed = await this.#em.nativeUpdate(InstallTokenEntity, { tokenHash, consumedAt: null, expiresAt: { $gt: now } },
      { consumedAt: now, enrollHash: hashToken(enrollCode), enrollExpiresAt });
    if (claimed !== 1) throw new AppError('INSTALL_TOKEN_INVALID');
    const row = await this.#em.findOneOrFail(InstallTokenEntity, { tokenHash });
    const node = await this.#em.findOne(NodeEntity, { id: row.nodeId });
    if (!node) throw new AppError('INSTALL_TOKEN_INVALID');
    return { node, enrollCode, enrollExpiresAt };
  }

  /** Exchanges an enrollment code (once) for a fresh node token, exactly like a rotation. */
  async enroll(code: string): Promise<{ node: Node; token: string; previousTokenValidUntil: Date | null }> {
    if (!code.startsWith(ENROLL_PREFIX) || code.length !== ENROLL_PREFIX.length + 64) throw new AppError('INSTALL_ENROLL_INVALID');
    const enrollHash = hashToken(code);
    const now = new Date();
    const claimed = await this.#em.nativeUpdate(InstallTokenEntity, { enrollHash, enrolledAt: null, enrollExpiresAt: { $gt: now } }, { enrolledAt: now });
    if (claimed !== 1) throw new AppError('INSTALL_ENROLL_INVALID');
    const row = await this.#em.findOneOrFail(InstallTokenEntity, { enrollHash });
    try {
      return await this.#nodes.rotateToken(row.nodeId);
    } catch (err) {
      if (err instanceof AppError && err.code === 'NODE_NOT_FOUND') throw new AppError('INSTALL_ENROLL_INVALID');
      throw err;
    }
  }
}
