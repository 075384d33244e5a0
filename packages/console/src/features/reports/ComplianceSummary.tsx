import { Paper, SimpleGrid, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { formatBytes } from '../../lib/time.ts';
import type { ComplianceReport } from './compliance-query.ts';

function Figure({
  label,
  value,
  hint,
  colour,
}: {
  label: string;
  value: string | number;
  hint?: string;
  colour?: string;
}) {
  return (
    <Paper withBorder p="sm" radius="md">
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text fz={22} fw={700} c={colour}>
        {value}
      </Text>
      {hint && (
        <Text size="xs" c="dimmed">
          {hint}
        </Text>
      )}
    </Paper>
  );
}

/** The report's totals. */
export function ComplianceSummary({ summary }: { summary: ComplianceReport['summary'] }) {
  const { t } = useTranslation('reports');
  const s = summary;
  return (
    <SimpleGrid cols={{ base: 2, sm: 4, lg: 7 }} data-testid="compliance-summary">
      <Figure
        label={t('compliance.summary.tasks')}
        value={s.totalTasks}
        hint={t('compliance.summary.enabled', { count: s.enabledTasks })}
      />
      <Figure label={t('compliance.summary.compliant')} value={s.compliantTasks} colour="teal" />
      <Figure
        label={t('compliance.summary.atRisk')}
        value={s.atRiskTasks}
        {...(s.atRiskTasks ? { colour: 'red' } : {})}
      />
      <Figure label={t('compliance.summary.encrypted')} value={s.encryptedTasks} />
      <Figure label={t('compliance.summary.successRate')} value={`${(s.overallSuccessRate * 100).toFixed(1)} %`} />
      <Figure label={t('compliance.summary.protected')} value={formatBytes(s.totalProtectedBytes)} />
      <Figure
        label={t('compliance.summary.rtoExceeded')}
        value={s.rtoExceededTasks}
        hint={`${t('compliance.summary.rtoUnmeasured')}: ${s.rtoUnmeasuredTasks}`}
        {...(s.rtoExceededTasks ? { colour: 'red' } : {})}
      />
    </SimpleGrid>
  );
}
