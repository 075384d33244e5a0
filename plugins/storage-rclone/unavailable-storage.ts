import type { Readable } from 'node:stream';
import type { ObjectInfo, ProviderError, StorageInstance, TestResult } from '@backplane/plugin-api';
import { notInstalled } from './errors.ts';

/** The instance of any rclone type when no usable rclone is installed: every operation is `unsupported`. */
export class UnavailableStorage implements StorageInstance {
  readonly #binary: string;
  readonly #reason: string;

  constructor(binary: string, reason: string) {
    this.#binary = binary;
    this.#reason = reason;
  }

  #error(): ProviderError {
    return notInstalled(this.#binary, this.#reason);
  }

  async put(_key: string, body: Readable): Promise<{ size: number }> {
    body.destroy();
    throw this.#error();
  }

  async get(): Promise<Readable> {
    throw this.#error();
  }

  list(): AsyncIterable<ObjectInfo> {
    const error = () => this.#error();
    return {
      [Symbol.asyncIterator]() {
        return { next: () => Promise.reject(error()) };
      },
    };
  }

  async stat(): Promise<ObjectInfo | undefined> {
    throw this.#error();
  }

  async delete(): Promise<void> {
    throw this.#error();
  }

  async usage(): Promise<{ usedBytes?: number; totalBytes?: number; freeBytes?: number }> {
    throw this.#error();
  }

  async testConnection(): Promise<TestResult> {
    return { success: false, message: this.#error().message };
  }
}
