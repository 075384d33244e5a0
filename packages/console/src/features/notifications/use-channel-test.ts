import { useMutation } from '@tanstack/react-query';
import { useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client.ts';
import type { RequestBody } from '../../api/types.ts';

/** "Send test": of the form as it stands (POST /api/notifications/test) or of a saved channel (its delivery log records it). */
export function useChannelTest(savedId: number | undefined) {
  const queryClient = useQueryClient();
  const unsaved = useMutation({
    mutationFn: (body: RequestBody<'/api/notifications/test', 'post'>) =>
      unwrap(api.POST('/api/notifications/test', { body })),
  });
  const saved = useMutation({
    mutationFn: () => unwrap(api.POST('/api/notifications/{id}/test', { params: { path: { id: savedId ?? 0 } } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['notifications', 'deliveries', savedId] }),
  });
  return { unsaved, saved };
}
