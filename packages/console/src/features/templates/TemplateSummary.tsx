import { Fragment } from 'react';
import { Paper, Table, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import {
  PASSWORD_MASK,
  SECTIONS,
  TEMPLATE_FIELDS,
  applies,
  valuesFromPayload,
  type TemplateField,
} from './template-fields.ts';
import { cronText } from './TemplateFieldInput.tsx';
import type { References } from './use-references.ts';

type FieldKey = keyof typeof import('../../i18n/en/templates.ts').default.fields;

/** The task a template makes, in words: each section's set fields, ids by name, cron in words. */
export function TemplateSummary({ payload, refs }: { payload: Record<string, unknown>; refs: References }) {
  const { t } = useTranslation('templates');
  const values = valuesFromPayload(payload);
  const nameOf = (options: { value: string; label: string }[], id: string) =>
    options.find((o) => o.value === id)?.label ?? `#${id}`;
  const show = (f: TemplateField): string | null => {
    const v = values[f.key];
    if (f.kind === 'boolean') return v ? t('summary.yes') : t('summary.no');
    if (f.kind === 'secret') return payload[f.key] === PASSWORD_MASK ? PASSWORD_MASK : null;
    if (f.kind === 'node') return v ? nameOf(refs.nodes, String(v)) : t('hints.master');
    if (Array.isArray(v)) {
      if (v.length === 0) return null;
      if (f.kind === 'targets') return v.map((id) => nameOf(refs.targets, id)).join(', ');
      if (f.kind === 'tasks') return v.map((id) => nameOf(refs.tasks, id)).join(', ');
      return v.join(', ');
    }
    const text = String(v ?? '');
    if (f.key === 'cronExpr' && !text) return t('summary.manual');
    if (!text) return null;
    const words = f.key === 'cronExpr' || f.key === 'verifyCronExpr' ? cronText(text) : null;
    return words ? `${text} (${words})` : text;
  };
  const fields = TEMPLATE_FIELDS as readonly TemplateField[];
  return (
    <Paper withBorder p="md">
      <Title order={2} size="h4" mb="sm">
        {t('summary.title')}
      </Title>
      <Table.ScrollContainer minWidth={320}>
        <Table variant="vertical" withTableBorder={false}>
          <Table.Tbody>
            {SECTIONS.map((section) => {
              const rows = fields
                .filter((f) => f.section === section && applies(f, values.type, refs.drivers))
                .map((f) => [f, show(f)] as const)
                .filter(([, v]) => v !== null);
              if (rows.length === 0) return null;
              return (
                <Fragment key={section}>
                  <Table.Tr>
                    <Table.Th colSpan={2}>
                      <Text fw={700} size="sm">
                        {t(`sections.${section}`)}
                      </Text>
                    </Table.Th>
                  </Table.Tr>
                  {rows.map(([f, v]) => (
                    <Table.Tr key={f.key}>
                      <Table.Th w={240} fw={400} c="dimmed">
                        {t(`fields.${f.key as FieldKey}`)}
                      </Table.Th>
                      <Table.Td>{v}</Table.Td>
                    </Table.Tr>
                  ))}
                </Fragment>
              );
            })}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Paper>
  );
}
