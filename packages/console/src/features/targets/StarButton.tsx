import { ActionIcon, Tooltip } from '@mantine/core';
import { IconStar, IconStarFilled } from '@tabler/icons-react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client.ts';
import { ApiError } from '../../api/api-error.ts';
import { targetKeys } from './target-queries.ts';

/** Toggles a target's star (PUT …/star); starred targets are listed first. Read-only for viewers. */
export function StarButton({
  id,
  name,
  starred,
  canWrite,
}: {
  id: number;
  name: string;
  starred: boolean;
  canWrite: boolean;
}) {
  const { t } = useTranslation('targets');
  const queryClient = useQueryClient();
  const toggle = useMutation({
    mutationFn: () => unwrap(api.PUT('/api/storage-targets/{id}/star', { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: targetKeys.all }),
    onError: (err) =>
      notifications.show({
        color: 'red',
        title: t('star.failed'),
        message: `${err.message}${err instanceof ApiError ? ` (${err.code})` : ''}`,
      }),
  });
  const label = t(starred ? 'star.remove' : 'star.add', { name });
  const icon = starred ? <IconStarFilled size={16} /> : <IconStar size={16} />;
  if (!canWrite)
    return starred ? (
      <IconStarFilled size={16} aria-label={t('star.remove', { name })} color="var(--mantine-color-yellow-6)" />
    ) : null;
  return (
    <Tooltip label={label}>
      <ActionIcon
        variant="subtle"
        color={starred ? 'yellow' : 'gray'}
        aria-label={label}
        aria-pressed={starred}
        loading={toggle.isPending}
        onClick={() => toggle.mutate()}
      >
        {icon}
      </ActionIcon>
    </Tooltip>
  );
}
