import { queryOptions } from '@tanstack/react-query';
import { api, unwrap, unwrapPage } from '../../api/client.ts';

/** The queries the notifications pages share (one cache key each). */
export const channelTypesQuery = queryOptions({
  queryKey: ['notifications', 'types'],
  queryFn: () => unwrap(api.GET('/api/notifications/types')),
  staleTime: 5 * 60_000,
});

/** What a channel's `eventTypes` may list, each described (GET /api/notifications/event-types). */
export const eventTypesQuery = queryOptions({
  queryKey: ['notifications', 'event-types'],
  queryFn: () => unwrap(api.GET('/api/notifications/event-types')),
  staleTime: 5 * 60_000,
});

export const channelsQuery = queryOptions({
  queryKey: ['notifications', 'list'],
  queryFn: () => unwrapPage(api.GET('/api/notifications', { params: { query: { limit: 1000, offset: 0 } } })),
});

export const channelQuery = (id: number) =>
  queryOptions({
    queryKey: ['notifications', 'detail', id],
    queryFn: () => unwrap(api.GET('/api/notifications/{id}', { params: { path: { id } } })),
  });

export type DeliveryStatus = 'pending' | 'sending' | 'delivered' | 'failed' | 'coalesced' | 'held' | 'digested';
export const DELIVERY_STATUSES: DeliveryStatus[] = [
  'pending',
  'sending',
  'delivered',
  'failed',
  'coalesced',
  'held',
  'digested',
];

export const deliveriesQuery = (id: number, page: { limit: number; offset: number; status?: DeliveryStatus }) =>
  queryOptions({
    queryKey: ['notifications', 'deliveries', id, page],
    queryFn: () => unwrapPage(api.GET('/api/notifications/{id}/deliveries', { params: { path: { id }, query: page } })),
  });
