/**
 * The tasks "Apply" creates (POST /api/task-templates/{id}/apply, body `{variables: [...]}`): one
 * row per task, each with its name and the overrides the route takes (sourcePaths, dbHost,
 * dbName, tags, nodeId); a blank override keeps the template's value. Pure: test/console/template-fields.test.ts.
 */

export const MAX_APPLY = 100;

export interface ApplyRow {
  name: string;
  sourcePaths: string[];
  dbHost: string;
  dbName: string;
  tags: string[];
  /** '' keeps the template's node. */
  nodeId: string;
}

export const EMPTY_ROW: ApplyRow = { name: '', sourcePaths: [], dbHost: '', dbName: '', tags: [], nodeId: '' };

export interface ApplyItem {
  name: string;
  sourcePaths?: string[];
  dbHost?: string;
  dbName?: string;
  tags?: string[];
  nodeId?: number;
}

/** The request's `variables`, and the rows whose name is missing (the server would refuse the whole request). */
export function variablesOf(rows: readonly ApplyRow[]): { variables: ApplyItem[]; missingNames: number[] } {
  const missingNames: number[] = [];
  const variables = rows.map((r, i) => {
    if (r.name.trim() === '') missingNames.push(i);
    const paths = r.sourcePaths.map((p) => p.trim()).filter(Boolean);
    const tags = r.tags.map((t) => t.trim()).filter(Boolean);
    const node = Number(r.nodeId);
    return {
      name: r.name.trim(),
      ...(paths.length ? { sourcePaths: paths } : {}),
      ...(r.dbHost.trim() ? { dbHost: r.dbHost.trim() } : {}),
      ...(r.dbName.trim() ? { dbName: r.dbName.trim() } : {}),
      ...(tags.length ? { tags } : {}),
      ...(r.nodeId !== '' && Number.isInteger(node) && node >= 0 ? { nodeId: node } : {}),
    };
  });
  return { variables, missingNames };
}

/** Where to go after applying: the task when exactly one was created, else stay and show the results. */
export function createdTaskPath(results: readonly { success: boolean; taskId?: number }[]): string | null {
  const created = results.filter((r) => r.success && r.taskId !== undefined);
  return results.length === 1 && created.length === 1 ? `/tasks/${created[0]!.taskId}` : null;
}
