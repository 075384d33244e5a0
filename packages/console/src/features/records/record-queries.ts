import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, unwrap, unwrapPage } from '../../api/client.ts';
import { listQuery, type ListFilters } from './list-filters.ts';

export const PAGE_SIZE = 50;

/** Lists refresh every few seconds while something on the page is still running. */
const whileActive = (items: ReadonlyArray<{ state: string }> | undefined) =>
  items?.some((r) => r.state === 'queued' || r.state === 'running') ? 3000 : false;

export function useBackupRecords(f: ListFilters) {
  const { taskId, nodeId, status, dateFrom, dateTo, limit, offset } = listQuery(f, PAGE_SIZE);
  const query = { taskId, nodeId, status, dateFrom, dateTo, limit, offset };
  return useQuery({
    queryKey: ['backup-records', query],
    queryFn: () => unwrapPage(api.GET('/api/backup/records', { params: { query } })),
    placeholderData: keepPreviousData,
    refetchInterval: (q) => whileActive(q.state.data?.items),
  });
}

export function useBackupRecord(id: number) {
  return useQuery({
    queryKey: ['backup-records', id],
    queryFn: () => unwrap(api.GET('/api/backup/records/{id}', { params: { path: { id } } })),
    refetchInterval: (q) => whileActive(q.state.data ? [q.state.data] : undefined),
  });
}

export function useRestores(f: ListFilters) {
  const { taskId, backupRecordId, status, dateFrom, dateTo, limit, offset } = listQuery(f, PAGE_SIZE);
  const query = { taskId, backupRecordId, status, dateFrom, dateTo, limit, offset };
  return useQuery({
    queryKey: ['restore-records', query],
    queryFn: () => unwrapPage(api.GET('/api/restore/records', { params: { query } })),
    placeholderData: keepPreviousData,
    refetchInterval: (q) => whileActive(q.state.data?.items),
  });
}

export function useVerifications(f: ListFilters) {
  const { taskId, backupRecordId, status, dateFrom, dateTo, limit, offset } = listQuery(f, PAGE_SIZE);
  const query = { taskId, backupRecordId, status, dateFrom, dateTo, limit, offset };
  return useQuery({
    queryKey: ['verify-records', query],
    queryFn: () => unwrapPage(api.GET('/api/verify/records', { params: { query } })),
    placeholderData: keepPreviousData,
    refetchInterval: (q) => whileActive(q.state.data?.items),
  });
}

export function useReplications(f: ListFilters) {
  const { taskId, backupRecordId, destTargetId, status, dateFrom, dateTo, limit, offset } = listQuery(f, PAGE_SIZE);
  const query = { taskId, backupRecordId, destTargetId, status, dateFrom, dateTo, limit, offset };
  return useQuery({
    queryKey: ['replication-records', query],
    queryFn: () => unwrapPage(api.GET('/api/replication/records', { params: { query } })),
    placeholderData: keepPreviousData,
    refetchInterval: (q) => whileActive(q.state.data?.items),
  });
}
