import { Paper, SimpleGrid, Stack, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import {
  SECTIONS,
  TEMPLATE_FIELDS,
  applies,
  type FieldError,
  type FormValue,
  type TemplateField,
  type TemplateValues,
} from './template-fields.ts';
import { TemplateFieldInput } from './TemplateFieldInput.tsx';
import type { References } from './use-references.ts';

export interface TemplatePayloadFormProps {
  values: TemplateValues;
  errors: Record<string, FieldError>;
  refs: References;
  passwordStored: boolean;
  disabled: boolean;
  onChange: (key: string, value: FormValue) => void;
}

/** The task settings a template holds, section by section; fields that do not apply to the chosen type (or its driver) are hidden. */
export function TemplatePayloadForm({
  values,
  errors,
  refs,
  passwordStored,
  disabled,
  onChange,
}: TemplatePayloadFormProps) {
  const { t } = useTranslation('templates');
  const fields = TEMPLATE_FIELDS as readonly TemplateField[];
  return (
    <Stack>
      {SECTIONS.map((section) => {
        const shown = fields.filter((f) => f.section === section && applies(f, values.type, refs.drivers));
        if (shown.length === 0) return null;
        return (
          <Paper withBorder p="md" key={section}>
            <Title order={2} size="h4" mb="sm">
              {t(`sections.${section}`)}
            </Title>
            <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
              {shown.map((f) => (
                <TemplateFieldInput
                  key={f.key}
                  field={f}
                  value={values[f.key]}
                  error={errors[f.key]}
                  refs={refs}
                  taskType={String(values.type ?? '')}
                  passwordStored={passwordStored}
                  disabled={disabled}
                  onChange={(v) => onChange(f.key, v)}
                />
              ))}
            </SimpleGrid>
          </Paper>
        );
      })}
    </Stack>
  );
}
