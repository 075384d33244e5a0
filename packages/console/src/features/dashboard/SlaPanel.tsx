import { Anchor, Badge, Group, Table, Text } from '@mantine/core';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { QueryState } from '../../components/QueryState.tsx';
import { RelativeTime } from '../../components/RelativeTime.tsx';
import { EmptyState } from '../../components/EmptyState.tsx';
import { Panel } from './Panel.tsx';
import { useSla } from './dashboard-queries.ts';
import { slaRows, type SlaLevel, type SlaRow } from './sla-status.ts';

const LEVEL_COLOUR: Record<SlaLevel, string> = { breach: 'red', unproven: 'orange', ok: 'green' };

function RpoCell({ row }: { row: SlaRow }) {
  const { t } = useTranslation('dashboard');
  if (!row.rpo)
    return (
      <Text size="sm" c="dimmed">
        {t('sla.rpoNone')}
      </Text>
    );
  if (row.rpo.neverSucceeded)
    return (
      <Text size="sm" c="red">
        {t('sla.rpoNever', { hours: row.rpo.hours })}
      </Text>
    );
  return (
    <Text size="sm" c="red" component="div">
      {t('sla.rpoBreach', { hours: row.rpo.hours, since: Math.round(row.rpo.hoursSince) })}
      {row.rpo.lastSuccessAt && (
        <Text size="xs" c="dimmed">
          {t('sla.lastGood')}: <RelativeTime value={row.rpo.lastSuccessAt} size="xs" />
        </Text>
      )}
    </Text>
  );
}

function RtoCell({ row, maxAgeDays }: { row: SlaRow; maxAgeDays: number }) {
  const { t } = useTranslation('dashboard');
  const rto = row.rto;
  if (!rto)
    return (
      <Text size="sm" c="dimmed">
        {t('sla.rpoNone')}
      </Text>
    );
  if (rto.status === 'unmeasured')
    return (
      <Text size="sm" c="orange">
        {t('sla.rtoUnmeasured', { minutes: rto.minutes, days: maxAgeDays })}
      </Text>
    );
  return (
    <Text size="sm" c={rto.status === 'exceeded' ? 'red' : undefined} component="div">
      {t('sla.rtoMeasured', { minutes: rto.minutes, measured: rto.measuredMinutes ?? '—' })}
      <Group gap={6}>
        {rto.measuredAt && <RelativeTime value={rto.measuredAt} size="xs" />}
        {rto.verifyRecordId !== null && (
          <Anchor component={Link} to={`/verifications/${rto.verifyRecordId}`} size="xs">
            {t('sla.evidence', { id: rto.verifyRecordId })}
          </Anchor>
        )}
      </Group>
    </Text>
  );
}

/** Which tasks miss their RPO (with the last good backup) and whether each RTO is proven by a recent restore. */
export function SlaPanel() {
  const { t } = useTranslation('dashboard');
  const query = useSla();
  return (
    <Panel title={t('sla.title')}>
      <QueryState query={query}>
        {(sla) => {
          if (sla.totalTasksWithSla === 0 && sla.totalTasksWithRto === 0)
            return <EmptyState title={t('sla.empty')} hint={t('sla.emptyHint')} />;
          const rows = slaRows(sla);
          return (
            <>
              <Group gap="xs">
                {sla.totalTasksWithSla > 0 && (
                  <Badge color={sla.violated ? 'red' : 'green'} variant="light">
                    {t('sla.rpoSummary', { compliant: sla.compliant, total: sla.totalTasksWithSla })}
                  </Badge>
                )}
                {sla.totalTasksWithRto > 0 && (
                  <Badge color={sla.rtoExceeded ? 'red' : sla.rtoUnmeasured ? 'orange' : 'green'} variant="light">
                    {t('sla.rtoSummary', { ok: sla.rtoOk, exceeded: sla.rtoExceeded, unmeasured: sla.rtoUnmeasured })}
                  </Badge>
                )}
              </Group>
              {rows.length === 0 ? (
                <Text size="sm" c="dimmed">
                  {t('sla.allMet')}
                </Text>
              ) : (
                <Table.ScrollContainer minWidth={560}>
                  <Table data-testid="sla-table">
                    <Table.Thead>
                      <Table.Tr>
                        <Table.Th>{t('sla.task')}</Table.Th>
                        <Table.Th>{t('sla.state')}</Table.Th>
                        <Table.Th>{t('sla.rpo')}</Table.Th>
                        <Table.Th>{t('sla.rto')}</Table.Th>
                      </Table.Tr>
                    </Table.Thead>
                    <Table.Tbody>
                      {rows.map((r) => (
                        <Table.Tr key={r.taskId}>
                          <Table.Td>
                            <Anchor component={Link} to={`/tasks/${r.taskId}`} size="sm">
                              {r.taskName}
                            </Anchor>
                          </Table.Td>
                          <Table.Td>
                            <Badge color={LEVEL_COLOUR[r.level]} variant="light">
                              {t(`sla.level.${r.level}`)}
                            </Badge>
                          </Table.Td>
                          <Table.Td>
                            <RpoCell row={r} />
                          </Table.Td>
                          <Table.Td>
                            <RtoCell row={r} maxAgeDays={sla.rtoEvidenceMaxAgeDays} />
                          </Table.Td>
                        </Table.Tr>
                      ))}
                    </Table.Tbody>
                  </Table>
                </Table.ScrollContainer>
              )}
            </>
          );
        }}
      </QueryState>
    </Panel>
  );
}
