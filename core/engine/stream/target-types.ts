import type { StorageInstance } from '@backplane/plugin-api';

/** A target the pipeline writes to, and what became of it: shared by the pipeline and its fan-out. */
export interface PipelineTarget {
  id: number | string;
  name: string;
  instance: StorageInstance;
  key: string;
}

export interface TargetResult {
  targetId: number | string;
  name: string;
  key: string;
  status: 'success' | 'failed';
  /** Stored bytes, as the target reported them (success only). */
  size?: number;
  error?: string;
  attempts: number;
}
