import { Anchor, Badge, Stack, Table, Text } from '@mantine/core';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { RelativeTime } from '../../components/RelativeTime.tsx';
import { StatusBadge } from '../../components/StatusBadge.tsx';
import { formatBytes } from '../../lib/time.ts';
import { complianceReasons, type Reason } from './compliance-filters.ts';
import type { ComplianceRow } from './compliance-query.ts';

const RISK_COLOUR = { ok: 'teal', at_risk: 'red', not_applicable: 'gray' } as const;

/** One row per task: compliant or not, and why (by the server's rules), with the evidence behind it. */
export function ComplianceTable({ rows }: { rows: ComplianceRow[] }) {
  const { t } = useTranslation('reports');
  const now = Date.now();
  const reasonText = ({ key, params: p }: Reason): string => {
    switch (key) {
      case 'rpoMissed':
        return t('compliance.reasons.rpoMissed', { hours: p.hours ?? 0, rpo: p.rpo ?? 0 });
      case 'rtoExceeded':
        return t('compliance.reasons.rtoExceeded', { measured: p.measured ?? 0, rto: p.rto ?? 0 });
      case 'rtoUnmeasured':
        return t('compliance.reasons.rtoUnmeasured', { rto: p.rto ?? 0 });
      default:
        return t(`compliance.reasons.${key}`);
    }
  };
  return (
    <Table.ScrollContainer minWidth={1000}>
      <Table striped data-testid="compliance-table">
        <Table.Thead>
          <Table.Tr>
            {(
              [
                'task',
                'node',
                'compliance',
                'why',
                'runs',
                'successRate',
                'lastSuccess',
                'protected',
                'rpo',
                'rto',
              ] as const
            ).map((c) => (
              <Table.Th key={c}>{t(`compliance.columns.${c}`)}</Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((r) => (
            <Table.Tr key={r.taskId} data-risk={r.risk}>
              <Table.Td>
                <Anchor component={Link} to={`/tasks/${r.taskId}`} size="sm">
                  {r.taskName}
                </Anchor>
                <Text size="xs" c="dimmed">
                  {r.type}
                  {r.encrypted ? ` · ${t('compliance.encryptedTag')}` : ''}
                </Text>
              </Table.Td>
              <Table.Td>
                <Text size="sm">{r.nodeName}</Text>
              </Table.Td>
              <Table.Td>
                <Badge color={RISK_COLOUR[r.risk]} variant="light">
                  {t(`compliance.risk.${r.risk}`)}
                </Badge>
              </Table.Td>
              <Table.Td>
                <Stack gap={0}>
                  {complianceReasons(r, now).map((why) => (
                    <Text
                      key={why.key}
                      size="xs"
                      c={
                        why.key === 'rtoUnmeasured'
                          ? 'orange'
                          : why.key === 'ok'
                            ? 'dimmed'
                            : r.risk === 'at_risk'
                              ? 'red'
                              : 'dimmed'
                      }
                    >
                      {reasonText(why)}
                    </Text>
                  ))}
                </Stack>
              </Table.Td>
              <Table.Td>
                <Text size="sm">
                  {r.totalRuns} ({r.successes} / {r.failures})
                </Text>
              </Table.Td>
              <Table.Td>
                <Text size="sm">{r.totalRuns ? `${(r.successRate * 100).toFixed(1)} %` : '—'}</Text>
              </Table.Td>
              <Table.Td>
                <RelativeTime value={r.lastSuccessAt} />
                {r.lastStatus !== 'none' && r.lastStatus !== 'success' && (
                  <div>
                    <StatusBadge status={r.lastStatus} />
                  </div>
                )}
              </Table.Td>
              <Table.Td>
                <Text size="sm">{formatBytes(r.protectedBytes)}</Text>
              </Table.Td>
              <Table.Td>
                <Text size="sm">
                  {r.slaHoursRpo ? t('compliance.rpoHours', { count: r.slaHoursRpo }) : t('compliance.notSet')}
                </Text>
              </Table.Td>
              <Table.Td>
                <Text size="sm">
                  {r.rtoMinutes ? t('compliance.rtoMinutes', { count: r.rtoMinutes }) : t('compliance.notSet')}
                </Text>
                {r.rtoStatus !== 'not_set' && (
                  <Text size="xs" c="dimmed">
                    {r.rtoStatus}
                    {r.measuredRestoreMinutes !== null ? ` · ${r.measuredRestoreMinutes} min` : ''}
                  </Text>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
