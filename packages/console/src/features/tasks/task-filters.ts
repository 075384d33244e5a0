/**
 * The task list's filters. The list route filters by tag, type and enabled itself; name and
 * node are matched here (the route has no such parameters), so the whole list is loaded once
 * (as BackupX's console does) and filtered in the browser. Pure: test/console/task-filters.test.ts.
 */
export interface TaskFilters {
  q: string;
  type: string | null;
  tag: string | null;
  enabled: 'all' | 'enabled' | 'disabled';
  /** 'master', a node id, or `pool:<label>`. */
  node: string | null;
}

export const NO_FILTERS: TaskFilters = { q: '', type: null, tag: null, enabled: 'all', node: null };

export interface FilterableTask {
  name: string;
  type: string;
  tags: string;
  enabled: boolean;
  nodeId: number;
  nodeLabel: string;
}

export function matchesFilters(task: FilterableTask, f: TaskFilters): boolean {
  const q = f.q.trim().toLowerCase();
  if (q && !task.name.toLowerCase().includes(q)) return false;
  if (f.type && task.type !== f.type) return false;
  if (
    f.tag &&
    !task.tags
      .split(',')
      .map((t) => t.trim())
      .includes(f.tag)
  )
    return false;
  if (f.enabled !== 'all' && task.enabled !== (f.enabled === 'enabled')) return false;
  if (f.node) {
    if (f.node === 'master') return task.nodeId === 0 && task.nodeLabel === '';
    if (f.node.startsWith('pool:')) return task.nodeLabel === f.node.slice(5);
    return String(task.nodeId) === f.node;
  }
  return true;
}

/** Filters as URL search params (shareable links), and back. */
export function filtersToSearch(f: TaskFilters): Record<string, string> {
  const out: Record<string, string> = {};
  if (f.q.trim()) out.q = f.q.trim();
  if (f.type) out.type = f.type;
  if (f.tag) out.tag = f.tag;
  if (f.enabled !== 'all') out.enabled = f.enabled;
  if (f.node) out.node = f.node;
  return out;
}

export function filtersFromSearch(get: (key: string) => string | null): TaskFilters {
  const enabled = get('enabled');
  return {
    q: get('q') ?? '',
    type: get('type'),
    tag: get('tag'),
    enabled: enabled === 'enabled' || enabled === 'disabled' ? enabled : 'all',
    node: get('node'),
  };
}
