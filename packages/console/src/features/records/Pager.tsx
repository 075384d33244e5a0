import { Group, Pagination, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { pageCount } from './list-filters.ts';

/** Page links under a list, with "1–50 of 230". */
export function Pager({
  page,
  total,
  pageSize,
  onPage,
}: {
  page: number;
  total: number;
  pageSize: number;
  onPage: (page: number) => void;
}) {
  const { t } = useTranslation('records');
  if (total === 0) return null;
  const from = (page - 1) * pageSize + 1;
  const to = Math.min(total, page * pageSize);
  return (
    <Group justify="space-between" mt="sm" wrap="wrap">
      <Text size="sm" c="dimmed">
        {t('pager.showing', { from, to, total })}
      </Text>
      {total > pageSize && (
        <Pagination
          total={pageCount(total, pageSize)}
          value={page}
          onChange={onPage}
          size="sm"
          aria-label={t('pager.label')}
        />
      )}
    </Group>
  );
}
