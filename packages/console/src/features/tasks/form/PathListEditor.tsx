import { useId } from 'react';
import { ActionIcon, Button, Group, Input, Stack, TextInput } from '@mantine/core';
import { IconFolderOpen, IconPlus, IconTrash } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';

/** A list of absolute paths: edit, remove, add, or browse the node for more. */
export function PathListEditor({
  label,
  value,
  onChange,
  error,
  onBrowse,
  description,
}: {
  label: string;
  value: string[];
  onChange: (v: string[]) => void;
  error?: string | undefined;
  onBrowse?: (() => void) | undefined;
  description?: string;
}) {
  const { t } = useTranslation('tasks');
  const rows = value.length ? value : [''];
  const set = (i: number, v: string) => onChange(rows.map((x, j) => (j === i ? v : x)));
  const id = useId();
  // A group, not Input.Wrapper: the wrapper would label every row's input with the same id.
  return (
    <Stack gap={2} role="group" aria-labelledby={`${id}-label`}>
      <Input.Label id={`${id}-label`} required>
        {label}
      </Input.Label>
      {description && <Input.Description>{description}</Input.Description>}
      <Stack gap={6} mt={4}>
        {rows.map((p, i) => (
          <Group key={i} gap="xs" wrap="nowrap">
            <TextInput
              style={{ flex: 1 }}
              value={p}
              placeholder="/srv/data"
              aria-label={t('form.pathNumber', { n: i + 1 })}
              onChange={(e) => set(i, e.currentTarget.value)}
            />
            <ActionIcon
              variant="subtle"
              color="red"
              aria-label={t('form.removePath', { n: i + 1 })}
              onClick={() => onChange(rows.filter((_, j) => j !== i))}
            >
              <IconTrash size={16} />
            </ActionIcon>
          </Group>
        ))}
        <Group gap="xs">
          <Button
            size="xs"
            variant="default"
            leftSection={<IconPlus size={14} />}
            onClick={() => onChange([...value, ''])}
          >
            {t('form.addPath')}
          </Button>
          {onBrowse && (
            <Button size="xs" variant="default" leftSection={<IconFolderOpen size={14} />} onClick={onBrowse}>
              {t('form.browse')}
            </Button>
          )}
        </Group>
      </Stack>
      {error && <Input.Error>{error}</Input.Error>}
    </Stack>
  );
}
