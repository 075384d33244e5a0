import { useQuery } from '@tanstack/react-query';
import { useDatabaseTypes } from '../tasks/task-queries.ts';
import { nodesQuery, targetsQuery, taskTypesQuery, tasksQuery } from './queries.ts';

export interface Option {
  value: string;
  label: string;
}

/**
 * Choices for the id fields of a template, by name (ids the lists lack still show, as "#id"), and
 * the database drivers, which decide the database fields a type shows.
 */
export function useReferences() {
  const targets = useQuery(targetsQuery);
  const tasks = useQuery(tasksQuery);
  const nodes = useQuery(nodesQuery);
  const types = useQuery(taskTypesQuery);
  const drivers = useDatabaseTypes();
  const options = (list: { id: number; name: string }[] | undefined): Option[] =>
    (list ?? []).map((x) => ({ value: String(x.id), label: x.name }));
  return {
    targets: options(targets.data),
    tasks: options(tasks.data),
    nodes: options(nodes.data),
    taskTypes: types.data ?? [{ value: 'file', label: 'file' }],
    drivers,
    error: targets.error ?? tasks.error ?? nodes.error ?? types.error,
  };
}

export type References = ReturnType<typeof useReferences>;

/** An option list that also holds the given values (an id no list names any more still shows and can be removed). */
export function withValues(options: Option[], values: string[]): Option[] {
  const known = new Set(options.map((o) => o.value));
  return [...options, ...values.filter((v) => !known.has(v)).map((v) => ({ value: v, label: `#${v}` }))];
}
