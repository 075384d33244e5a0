import type { EntityManager } from '@mikro-orm/core';
import { AggregateSql, containsPattern, num } from '../../db/aggregate-sql.ts';

export type SearchKind = 'task' | 'record' | 'storage' | 'node' | 'template' | 'notification';
export interface SearchItem {
  kind: SearchKind;
  id: number;
  title: string;
  subtitle: string;
  highlight: string;
  url: string;
}

/** One group's table, the columns searched (the first is the name that ranks) and how a row reads. */
interface Group {
  kind: SearchKind;
  table: string;
  columns: string[];
  select: string[];
  /** Among equal ranks: newest records first, names in order elsewhere. */
  tieBreak: string;
  item(row: Record<string, unknown>): Omit<SearchItem, 'kind' | 'highlight'>;
}

const GROUPS: Group[] = [
  {
    kind: 'task',
    table: 'backup_tasks',
    columns: ['name', 'type', 'tags', 'source_paths', 'db_host', 'db_name'],
    select: ['id', 'name', 'type', 'tags'],
    tieBreak: 'name',
    item: (r) => ({
      id: num(r.id),
      title: String(r.name),
      subtitle: [r.type, r.tags].filter(Boolean).join(' · '),
      url: `/backup/tasks?taskId=${num(r.id)}`,
    }),
  },
  {
    // The whole history, not only recent records (the reference looks at the newest 100).
    kind: 'record',
    table: 'backup_records',
    columns: ['task_name', 'file_name', 'storage_path'],
    select: ['id', 'task_name', 'file_name', 'status'],
    tieBreak: 'id desc',
    item: (r) => ({
      id: num(r.id),
      title: String(r.file_name) || `${String(r.task_name)} #${num(r.id)}`,
      subtitle: `${String(r.task_name)} · ${String(r.status)}`,
      url: `/backup/records?recordId=${num(r.id)}`,
    }),
  },
  {
    kind: 'storage',
    table: 'storage_targets',
    columns: ['name', 'description', 'type'],
    select: ['id', 'name', 'type', 'description'],
    tieBreak: 'name',
    item: (r) => ({
      id: num(r.id),
      title: String(r.name),
      subtitle: String(r.type),
      url: `/storage-targets?targetId=${num(r.id)}`,
    }),
  },
  {
    kind: 'node',
    table: 'nodes',
    columns: ['name', 'hostname', 'ip_address'],
    select: ['id', 'name', 'hostname', 'ip_address'],
    tieBreak: 'name',
    item: (r) => ({
      id: num(r.id),
      title: String(r.name),
      subtitle: [r.hostname, r.ip_address].filter(Boolean).join(' · '),
      url: `/nodes?nodeId=${num(r.id)}`,
    }),
  },
  {
    kind: 'template',
    table: 'task_templates',
    columns: ['name', 'description', 'task_type'],
    select: ['id', 'name', 'task_type'],
    tieBreak: 'name',
    item: (r) => ({
      id: num(r.id),
      title: String(r.name),
      subtitle: String(r.task_type),
      url: `/backup/templates?templateId=${num(r.id)}`,
    }),
  },
  {
    kind: 'notification',
    table: 'notification_channels',
    columns: ['name', 'type'],
    select: ['id', 'name', 'type'],
    tieBreak: 'name',
    item: (r) => ({
      id: num(r.id),
      title: String(r.name),
      subtitle: String(r.type),
      url: `/notifications?channelId=${num(r.id)}`,
    }),
  },
];

/** The matched text around the first hit (case-insensitive), for the client to show. */
function highlight(row: Record<string, unknown>, columns: string[], term: string): string {
  const lower = term.toLowerCase();
  for (const c of columns) {
    const text = String(row[c] ?? '');
    const at = text.toLowerCase().indexOf(lower);
    if (at >= 0) return text.slice(Math.max(0, at - 20), at + term.length + 20);
  }
  return '';
}

/**
 * Search across the resources every role may read, ranked exact name > name prefix > any
 * substring, `limit` per group. Matching and ranking happen in SQL, so the record history is
 * searched whole without loading it.
 */
export async function search(em: EntityManager, term: string, limit: number) {
  const sql = new AggregateSql(em);
  const results = await Promise.all(
    GROUPS.map(async (g) => {
      const rows = g.kind === 'record' ? await recordRows(sql, g, term, limit) : await groupRows(sql, g, term, limit);
      return rows.map((r): SearchItem => ({ kind: g.kind, ...g.item(r), highlight: highlight(r, g.columns, term) }));
    }),
  );
  const [tasks, records, storage, nodes, templates, notifications] = results as [
    SearchItem[],
    SearchItem[],
    SearchItem[],
    SearchItem[],
    SearchItem[],
    SearchItem[],
  ];
  return {
    query: term,
    tasks,
    records,
    storage,
    nodes,
    templates,
    notifications,
    totalCount: results.reduce((n, r) => n + r.length, 0),
  };
}

/** `0` for an exact name, `1` for a name starting with the term, `2` for any other match. */
function rankSql(sql: AggregateSql, name: string): string {
  return `case when lower(${name}) = ? then 0 when ${sql.contains(name)} then 1 else 2 end`;
}

function rankParams(term: string): unknown[] {
  return [term.toLowerCase(), containsPattern(term).slice(1)];
}

/** The small tables: matched and ranked in one statement. */
async function groupRows(sql: AggregateSql, g: Group, term: string, limit: number): Promise<Record<string, unknown>[]> {
  const columns = [...new Set([...g.select, ...g.columns])].join(', ');
  return sql.rows(
    `select ${columns}, ${rankSql(sql, g.columns[0]!)} as search_rank from ${g.table}
     where ${g.columns.map((c) => sql.contains(c)).join(' or ')} order by search_rank, ${g.tieBreak} limit ?`,
    [...rankParams(term), ...g.columns.map(() => containsPattern(term)), limit],
  );
}

/** How many of the newest matching records are ranked; a broad term matches most of the history. */
const RECORD_CANDIDATES = 2000;

/**
 * Records, over the whole history through the substring index of migration 018: SQLite's FTS5
 * trigram table (a phrase query matches any substring of three characters or more, whatever
 * the case), PostgreSQL's trigram GIN indexes under ILIKE. The newest 2000 matches are ranked;
 * a term under three characters cannot use a trigram index and scans.
 */
async function recordRows(
  sql: AggregateSql,
  g: Group,
  term: string,
  limit: number,
): Promise<Record<string, unknown>[]> {
  const columns = [...new Set([...g.select, ...g.columns])].map((c) => `r.${c}`).join(', ');
  const fts = sql.dialect === 'sqlite' && [...term].length >= 3;
  const candidates = fts
    ? `select rowid as id from backup_records_search where backup_records_search match ? order by rowid desc limit ${RECORD_CANDIDATES}`
    : `select id from backup_records where ${g.columns.map((c) => sql.contains(c)).join(' or ')} order by id desc limit ${RECORD_CANDIDATES}`;
  const candidateParams = fts ? [`"${term.replace(/"/g, '""')}"`] : g.columns.map(() => containsPattern(term));
  return sql.rows(
    `select ${columns}, ${rankSql(sql, 'r.task_name')} as search_rank from backup_records r
     join (${candidates}) m on m.id = r.id order by search_rank, r.id desc limit ?`,
    [...rankParams(term), ...candidateParams, limit],
  );
}
