import { useState } from 'react';
import { Button, Group, SegmentedControl, Select, Stack, Text, TextInput } from '@mantine/core';
import { IconDownload, IconPrinter } from '@tabler/icons-react';
import { Link, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { downloadFile } from '../../api/client.ts';
import { authHeaders } from '../../api/session.ts';
import { apiErrorOf } from '../../api/api-error.ts';
import { PageHeader } from '../../components/PageHeader.tsx';
import { QueryState } from '../../components/QueryState.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { EmptyState } from '../../components/EmptyState.tsx';
import { useCan } from '../../app/use-session.ts';
import { exactTime } from '../../lib/time.ts';
import {
  complianceExportPath,
  complianceHtmlPath,
  complianceSearch,
  filterRows,
  parseComplianceSearch,
  type ComplianceFilters,
  type RiskFilter,
} from './compliance-filters.ts';
import { useComplianceReport } from './compliance-query.ts';
import { ComplianceSummary } from './ComplianceSummary.tsx';
import { ComplianceTable } from './ComplianceTable.tsx';

const PERIODS = [7, 30, 90, 180, 365];

/** The printable page needs the bearer token, which a plain link cannot carry: fetched, then opened. */
async function openPrintable(path: string): Promise<void> {
  const tab = window.open('', '_blank');
  const response = await fetch(path, { headers: authHeaders() });
  if (!response.ok) {
    tab?.close();
    throw apiErrorOf(response.status, await response.json().catch(() => undefined));
  }
  const url = URL.createObjectURL(new Blob([await response.text()], { type: 'text/html' }));
  if (tab) tab.location.href = url;
  else window.location.href = url;
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** `/reports/compliance`: the compliance evidence per task for a period, filtered in the page; CSV export. */
export function CompliancePage() {
  const { t, i18n } = useTranslation('reports');
  const can = useCan();
  const [params, setParams] = useSearchParams();
  const filters = parseComplianceSearch(params.toString());
  const report = useComplianceReport(filters.days);
  const [actionError, setActionError] = useState<unknown>(null);
  const [exporting, setExporting] = useState(false);
  const update = (patch: Partial<ComplianceFilters>) =>
    setParams(complianceSearch({ ...filters, ...patch }), { replace: true });
  const exportCsv = async () => {
    setActionError(null);
    setExporting(true);
    try {
      await downloadFile(complianceExportPath(filters), `backplane-compliance-${filters.days}d.csv`);
    } catch (err) {
      setActionError(err);
    } finally {
      setExporting(false);
    }
  };
  return (
    <>
      <PageHeader
        title={t('compliance.title')}
        description={t('compliance.description')}
        actions={
          <>
            <Button
              variant="default"
              leftSection={<IconPrinter size={16} />}
              onClick={() => {
                setActionError(null);
                openPrintable(complianceHtmlPath(filters)).catch(setActionError);
              }}
            >
              {t('compliance.printable')}
            </Button>
            <Button leftSection={<IconDownload size={16} />} loading={exporting} onClick={() => void exportCsv()}>
              {t('compliance.exportCsv')}
            </Button>
          </>
        }
      />
      <Stack gap="md">
        <ErrorAlert error={actionError} />
        <Group align="flex-end" wrap="wrap">
          <Select
            label={t('compliance.filters.days')}
            w={180}
            allowDeselect={false}
            value={String(filters.days)}
            data={[...new Set([...PERIODS, filters.days])]
              .sort((a, b) => a - b)
              .map((d) => ({ value: String(d), label: t('compliance.filters.daysOption', { count: d }) }))}
            onChange={(v) => v && update({ days: Number(v) })}
          />
          <Stack gap={4}>
            <Text size="sm" fw={500} id="risk-filter">
              {t('compliance.filters.risk')}
            </Text>
            <SegmentedControl
              aria-labelledby="risk-filter"
              value={filters.risk}
              onChange={(v) => update({ risk: v as RiskFilter })}
              data={(['all', 'at_risk', 'ok', 'not_applicable'] as const).map((r) => ({
                value: r,
                label: t(`compliance.risk.${r}`),
              }))}
            />
          </Stack>
          <TextInput
            label={t('compliance.filters.search')}
            placeholder={t('compliance.filters.searchPlaceholder')}
            defaultValue={filters.q}
            onChange={(e) => update({ q: e.currentTarget.value.trim() })}
          />
        </Group>
        <QueryState query={report}>
          {(r) => {
            if (r.tasks.length === 0) {
              return (
                <EmptyState
                  title={t('compliance.empty')}
                  hint={t('compliance.emptyHint')}
                  action={
                    can('write') ? (
                      <Button component={Link} to="/tasks/new">
                        {t('compliance.createTask')}
                      </Button>
                    ) : undefined
                  }
                />
              );
            }
            const rows = filterRows(r.tasks, filters);
            return (
              <Stack gap="md">
                <Text size="sm" c="dimmed">
                  {t('compliance.generated', { when: exactTime(r.generatedAt, i18n.language), days: r.rangeDays })}
                </Text>
                <ComplianceSummary summary={r.summary} />
                <Text size="sm" c="dimmed" role="status">
                  {t('compliance.count', { shown: rows.length, total: r.tasks.length })}
                </Text>
                {rows.length === 0 ? (
                  <Text c="dimmed">{t('compliance.noMatch')}</Text>
                ) : (
                  <ComplianceTable rows={rows} />
                )}
              </Stack>
            );
          }}
        </QueryState>
      </Stack>
    </>
  );
}
