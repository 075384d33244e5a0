import type { EntityManager } from '@mikro-orm/core';
import { randomBytes } from 'node:crypto';
import { InstallTokenEntity, type InstallToken } from '../../db/entities/install-token.ts';
import { NodeEntity, type Node } from '../../db/entities/node.ts';
import { AppError } from '../../http/app-error.ts';
import { generateToken, hashToken, looksLike } from '../../security/tokens.ts';
import type { NodeService } from '../nodes/node-service.ts';
import type { InstallOptions } from './install-options.ts';

/** Unconsumed, unexpired installer tokens one node may have at a time. */
export const MAX_OPEN_INSTALL_TOKENS = 5;
/** How long the enrollment code a consumed installer carries stays valid. */
export const ENROLL_TTL_MS = 15 * 60_000;
const ENROLL_PREFIX = 'bpe_';

/** `bpe_` + 64 hex: the one-time enrollment code an installer script exchanges for the node token. */
export function generateEnrollCode(): string {
  return `${ENROLL_PREFIX}${randomBytes(32).toString('hex')}`;
}

/** What a consumed (or created) installer hands the renderer. */
export interface IssuedInstaller {
  node: Node;
  row: InstallToken;
  enrollCode: string;
  enrollExpiresAt: Date;
}

/**
 * One-time agent installers. Both secrets (install token, enrollment code) are stored as SHA-256
 * only and consumed with a single conditional UPDATE, so concurrent requests cannot both win.
 * An installer's first enrollment code is issued with it (for the embedded script,
 * `scriptBase64`); serving the installer replaces it with a fresh one, and enrolling with either
 * uses the installer up, so one installer enrolls the node once.
 */
export class InstallService {
  readonly #em: EntityManager;
  readonly #nodes: NodeService;

  constructor({ em, nodes }: { em: EntityManager; nodes: NodeService }) {
    this.#em = em;
    this.#nodes = nodes;
  }

  /** A node that can have installers: it exists (404 NODE_NOT_FOUND) and is not the master itself (400 NODE_INSTALL_LOCAL). */
  async installable(nodeId: number): Promise<Node> {
    const node = await this.#em.findOne(NodeEntity, { id: nodeId });
    if (!node) throw new AppError('NODE_NOT_FOUND');
    if (node.isLocal) throw new AppError('NODE_INSTALL_LOCAL');
    return node;
  }

  async create(
    nodeId: number,
    ttlSeconds: number,
    options: InstallOptions,
    createdBy: string,
  ): Promise<IssuedInstaller & { token: string }> {
    const node = await this.installable(nodeId);
    const now = new Date();
    const open = await this.#em.count(InstallTokenEntity, { nodeId, consumedAt: null, expiresAt: { $gt: now } });
    if (open >= MAX_OPEN_INSTALL_TOKENS) throw new AppError('INSTALL_TOKEN_RATE_LIMITED');
    const token = generateToken('install');
    const enrollCode = generateEnrollCode();
    const expiresAt = new Date(now.getTime() + ttlSeconds * 1000);
    const row = this.#em.create(InstallTokenEntity, {
      nodeId,
      tokenHash: hashToken(token),
      expiresAt,
      enrollHash: hashToken(enrollCode),
      enrollExpiresAt: expiresAt,
      createdBy: createdBy.slice(0, 64),
      ...options,
    });
    await this.#em.flush();
    return { node, row, token, enrollCode, enrollExpiresAt: expiresAt };
  }

  /** Consumes an installer token once; 404 INSTALL_TOKEN_INVALID for unknown, used or expired ones alike. */
  async consume(token: string): Promise<IssuedInstaller> {
    if (!looksLike('install', token)) throw new AppError('INSTALL_TOKEN_INVALID');
    const tokenHash = hashToken(token);
    const now = new Date();
    const enrollCode = generateEnrollCode();
    const enrollExpiresAt = new Date(now.getTime() + ENROLL_TTL_MS);
    // Not once its embedded script enrolled the node: the installer is used up.
    const claimed = await this.#em.nativeUpdate(
      InstallTokenEntity,
      { tokenHash, consumedAt: null, enrolledAt: null, expiresAt: { $gt: now } },
      { consumedAt: now, enrollHash: hashToken(enrollCode), enrollExpiresAt },
    );
    if (claimed !== 1) throw new AppError('INSTALL_TOKEN_INVALID');
    const row = await this.#em.findOneOrFail(InstallTokenEntity, { tokenHash });
    const node = await this.#em.findOne(NodeEntity, { id: row.nodeId });
    if (!node) throw new AppError('INSTALL_TOKEN_INVALID');
    return { node, row, enrollCode, enrollExpiresAt };
  }

  /** Exchanges an enrollment code (once) for a fresh node token, exactly like a rotation. */
  async enroll(code: string): Promise<{ node: Node; token: string; previousTokenValidUntil: Date | null }> {
    if (!code.startsWith(ENROLL_PREFIX) || code.length !== ENROLL_PREFIX.length + 64)
      throw new AppError('INSTALL_ENROLL_INVALID');
    const enrollHash = hashToken(code);
    const now = new Date();
    const claimed = await this.#em.nativeUpdate(
      InstallTokenEntity,
      { enrollHash, enrolledAt: null, enrollExpiresAt: { $gt: now } },
      { enrolledAt: now },
    );
    if (claimed !== 1) throw new AppError('INSTALL_ENROLL_INVALID');
    const row = await this.#em.findOneOrFail(InstallTokenEntity, { enrollHash });
    // An embedded script enrolled before the installer link was used: the link is used up too.
    await this.#em.nativeUpdate(InstallTokenEntity, { id: row.id, consumedAt: null }, { consumedAt: now });
    try {
      return await this.#nodes.rotateToken(row.nodeId);
    } catch (err) {
      if (err instanceof AppError && err.code === 'NODE_NOT_FOUND') throw new AppError('INSTALL_ENROLL_INVALID');
      throw err;
    }
  }
}
