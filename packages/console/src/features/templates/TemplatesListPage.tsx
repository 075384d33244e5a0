import { Anchor, Badge, Button, Table, Text } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { EmptyState } from '../../components/EmptyState.tsx';
import { RelativeTime } from '../../components/RelativeTime.tsx';
import { useCan } from '../../app/use-session.ts';
import { templatesQuery } from './queries.ts';

/** /templates: every task template with its task type and who made it. */
export function TemplatesListPage() {
  const { t } = useTranslation('templates');
  const can = useCan();
  const query = useQuery(templatesQuery);
  const add = can('write') ? (
    <Button component={Link} to="/templates/new" leftSection={<IconPlus size={16} />}>
      {t('add')}
    </Button>
  ) : null;
  return (
    <>
      <PageHeader title={t('title')} description={t('description')} actions={add} />
      <QueryState query={query}>
        {({ items }) =>
          items.length === 0 ? (
            <EmptyState
              title={t('empty.title')}
              hint={can('write') ? t('empty.hint') : t('empty.viewerHint')}
              action={add}
            />
          ) : (
            <Table.ScrollContainer minWidth={640}>
              <Table striped highlightOnHover>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>{t('columns.name')}</Table.Th>
                    <Table.Th>{t('columns.type')}</Table.Th>
                    <Table.Th>{t('columns.description')}</Table.Th>
                    <Table.Th>{t('columns.createdBy')}</Table.Th>
                    <Table.Th>{t('columns.updated')}</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {items.map((x) => (
                    <Table.Tr key={x.id}>
                      <Table.Td>
                        <Anchor component={Link} to={`/templates/${x.id}`}>
                          {x.name}
                        </Anchor>
                      </Table.Td>
                      <Table.Td>
                        <Badge variant="light" tt="none">
                          {x.taskType}
                        </Badge>
                      </Table.Td>
                      <Table.Td maw={360}>
                        <Text size="sm" lineClamp={2}>
                          {x.description}
                        </Text>
                      </Table.Td>
                      <Table.Td>{x.createdBy}</Table.Td>
                      <Table.Td>
                        <RelativeTime value={x.updatedAt} />
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )
        }
      </QueryState>
    </>
  );
}
