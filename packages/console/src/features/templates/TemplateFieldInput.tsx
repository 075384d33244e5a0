import { MultiSelect, NumberInput, PasswordInput, Select, Switch, TagsInput, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import cronstrue from 'cronstrue';
import type { FieldError, FormValue, TemplateField } from './template-fields.ts';
import { defaultPort } from '../tasks/task-form-model.ts';
import { withValues, type References } from './use-references.ts';

export interface TemplateFieldInputProps {
  field: TemplateField;
  value: FormValue | undefined;
  error?: FieldError;
  refs: References;
  /** The template's task type (the driver's default port shows in the port field). */
  taskType: string;
  passwordStored: boolean;
  disabled: boolean;
  onChange: (value: FormValue) => void;
}

type FieldKey = keyof typeof import('../../i18n/en/templates.ts').default.fields;

/** A cron expression in words, or nothing when it does not parse (the server's check names the problem). */
export function cronText(expr: string): string | null {
  if (!expr.trim()) return null;
  try {
    return cronstrue.toString(expr, { use24HourTimeFormat: true });
  } catch {
    return null;
  }
}

/** One payload field with the input its kind needs. */
export function TemplateFieldInput({
  field,
  value,
  error,
  refs,
  taskType,
  passwordStored,
  disabled,
  onChange,
}: TemplateFieldInputProps) {
  const { t } = useTranslation('templates');
  const label = t(`fields.${field.key as FieldKey}`);
  const common = { label, disabled, error: error ? t(`errors.${error}`) : undefined, 'data-field': field.key };
  const text = typeof value === 'string' || typeof value === 'number' ? String(value) : '';
  const list = Array.isArray(value) ? value : [];
  switch (field.kind) {
    case 'boolean':
      return <Switch {...common} checked={value === true} onChange={(e) => onChange(e.currentTarget.checked)} />;
    case 'taskType':
      return (
        <Select
          {...common}
          required
          allowDeselect={false}
          data={withValues(refs.taskTypes, text ? [text] : [])}
          value={text || null}
          onChange={(v) => onChange(v ?? '')}
        />
      );
    case 'select':
      return (
        <Select
          {...common}
          data={[...(field.choices ?? [])]}
          value={text || null}
          clearable
          description={t('hints.unset')}
          onChange={(v) => onChange(v ?? '')}
        />
      );
    case 'integer': {
      const port = field.key === 'dbPort' ? defaultPort(taskType, refs.drivers) : undefined;
      return (
        <NumberInput
          {...common}
          description={port ? t('hints.dbPort', { port }) : t('hints.unset')}
          placeholder={port ? String(port) : undefined}
          min={field.min}
          max={field.max}
          allowDecimal={false}
          value={text}
          onChange={(v) => onChange(String(v))}
        />
      );
    }
    case 'secret':
      return (
        <PasswordInput
          {...common}
          autoComplete="new-password"
          description={passwordStored ? t('hints.passwordStored') : undefined}
          placeholder={passwordStored ? '********' : undefined}
          value={text}
          onChange={(e) => onChange(e.currentTarget.value)}
        />
      );
    case 'list':
      return <TagsInput {...common} description={t('hints.list')} value={list} onChange={onChange} clearable />;
    case 'targets':
      return (
        <MultiSelect {...common} searchable data={withValues(refs.targets, list)} value={list} onChange={onChange} />
      );
    case 'tasks':
      return (
        <MultiSelect {...common} searchable data={withValues(refs.tasks, list)} value={list} onChange={onChange} />
      );
    case 'node':
      return (
        <Select
          {...common}
          searchable
          clearable
          description={t('hints.node')}
          placeholder={t('hints.master')}
          data={withValues(refs.nodes, text ? [text] : [])}
          value={text || null}
          onChange={(v) => onChange(v ?? '')}
        />
      );
    default: {
      const isCron = field.key === 'cronExpr' || field.key === 'verifyCronExpr';
      const words = isCron ? cronText(text) : null;
      return (
        <TextInput
          {...common}
          value={text}
          onChange={(e) => onChange(e.currentTarget.value)}
          description={isCron ? (words ?? (text ? undefined : t('hints.cronManual'))) : undefined}
        />
      );
    }
  }
}
