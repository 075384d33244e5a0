import { Paper, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { useCan } from '../../app/use-session.ts';
import { channelQuery, channelTypesQuery } from './queries.ts';
import { ChannelForm } from './ChannelForm.tsx';
import { DeliveryLog } from './DeliveryLog.tsx';

/** /notifications/new: a channel's form, generated from the type catalogue (operators and admins only). */
export function NewChannelPage() {
  const { t } = useTranslation('notifications');
  const can = useCan();
  const types = useQuery(channelTypesQuery);
  return (
    <>
      <PageHeader title={t('newTitle')} />
      {can('write') ? (
        <QueryState query={types}>{(list) => <ChannelForm types={list} readOnly={false} />}</QueryState>
      ) : (
        <Text c="dimmed">{t('writeOnly')}</Text>
      )}
    </>
  );
}

/** /notifications/:id: the channel's form (read-only for viewers), its test, and its delivery log. */
export function ChannelPage() {
  const { t } = useTranslation('notifications');
  const id = Number(useParams().id);
  const can = useCan();
  const types = useQuery(channelTypesQuery);
  const channel = useQuery(channelQuery(id));
  const readOnly = !can('write');
  return (
    <QueryState query={channel}>
      {(c) => (
        <Stack>
          <PageHeader title={t(readOnly ? 'viewTitle' : 'editTitle', { name: c.name })} />
          <QueryState query={types}>
            {/* Re-initialised when the stored channel changes (after a save), so the form shows what is stored. */}
            {(list) => <ChannelForm key={c.updatedAt} types={list} channel={c} readOnly={readOnly} />}
          </QueryState>
          <Paper withBorder p="md">
            <Title order={2} size="h4" mb="sm">
              {t('sections.deliveries')}
            </Title>
            <DeliveryLog channelId={c.id} />
          </Paper>
        </Stack>
      )}
    </QueryState>
  );
}
