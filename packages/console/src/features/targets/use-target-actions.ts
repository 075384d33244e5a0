import { useMutation, useQueryClient } from '@tanstack/react-query';
import { notifications } from '@mantine/notifications';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import type { RequestBody } from '../../api/types.ts';
import { targetKeys } from './target-queries.ts';

export type TargetBody = RequestBody<'/api/storage-targets', 'post'>;
export type AuthUrlBody = RequestBody<'/api/storage-targets/google-drive/auth-url', 'post'>;

/** The form's server calls: create or update, test the unsaved settings (an edit with its stored secrets), start Google's authorisation. */
export function useTargetActions(targetId: number | undefined) {
  const { t } = useTranslation('targets');
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const save = useMutation({
    mutationFn: (body: TargetBody) =>
      targetId === undefined
        ? unwrap(api.POST('/api/storage-targets', { body }))
        : unwrap(api.PUT('/api/storage-targets/{id}', { params: { path: { id: targetId } }, body })),
    onSuccess: async (target) => {
      await queryClient.invalidateQueries({ queryKey: targetKeys.all });
      if (targetId === undefined) {
        notifications.show({ color: 'green', message: t('form.created', { name: target.name }) });
        void navigate(`/targets/${target.id}`);
      } else {
        notifications.show({ color: 'green', message: t('form.saved') });
      }
    },
  });
  const test = useMutation({
    mutationFn: (body: TargetBody) =>
      unwrap(api.POST('/api/storage-targets/test', { body: targetId === undefined ? body : { ...body, targetId } })),
  });
  const authorise = useMutation({
    mutationFn: (body: AuthUrlBody) => unwrap(api.POST('/api/storage-targets/google-drive/auth-url', { body })),
    // Same tab: Google sends the browser back to the console's callback page, which completes the flow.
    onSuccess: (answer) => window.location.assign(answer.authUrl),
  });
  return { save, test, authorise };
}
