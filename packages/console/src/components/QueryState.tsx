import type { ReactNode } from 'react';
import { PageLoader } from './PageLoader.tsx';
import type { UseQueryResult } from '@tanstack/react-query';
import { ErrorAlert } from './ErrorAlert.tsx';

/** Loading and error states of a query, then its data. */
export function QueryState<T>({ query, children }: { query: UseQueryResult<T>; children: (data: T) => ReactNode }) {
  if (query.isPending) return <PageLoader />;
  if (query.isError) return <ErrorAlert error={query.error} />;
  return <>{children(query.data)}</>;
}
