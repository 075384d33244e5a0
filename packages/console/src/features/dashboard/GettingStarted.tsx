import { Button, Group, Paper, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { IconCheck } from '@tabler/icons-react';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useCan } from '../../app/use-session.ts';
import { gettingStartedSteps, nextStep } from './getting-started.ts';

/** The empty installation's walk-through: target, task, run; each step ticked when the API shows it done. */
export function GettingStarted({ targets, tasks, records }: { targets: number; tasks: number; records: number }) {
  const { t } = useTranslation('dashboard');
  const can = useCan();
  const steps = gettingStartedSteps({ targets, tasks, records });
  const next = nextStep(steps);
  return (
    <Paper
      withBorder
      p="lg"
      radius="md"
      component="section"
      aria-labelledby="getting-started"
      data-testid="getting-started"
    >
      <Stack gap="md">
        <div>
          <Title order={2} size="h3" id="getting-started">
            {t('start.title')}
          </Title>
          <Text c="dimmed" size="sm">
            {t('start.intro')}
          </Text>
        </div>
        <Stack gap="sm" component="ol" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
          {steps.map((s, i) => (
            <Group
              key={s.key}
              component="li"
              wrap="nowrap"
              align="flex-start"
              data-step={s.key}
              data-done={s.done ? 'true' : 'false'}
            >
              <ThemeIcon
                radius="xl"
                size="lg"
                variant={s.done ? 'filled' : 'light'}
                color={s.done ? 'teal' : 'gray'}
                aria-hidden
              >
                {s.done ? (
                  <IconCheck size={18} />
                ) : (
                  <Text fw={700} size="sm">
                    {i + 1}
                  </Text>
                )}
              </ThemeIcon>
              <Stack gap={2} style={{ flex: 1 }}>
                <Text fw={600} td={s.done ? 'line-through' : undefined}>
                  {t(`start.steps.${s.key}.title`)}
                  {s.done && (
                    <Text span size="xs" c="teal" ml="xs">
                      ({t('start.done')})
                    </Text>
                  )}
                </Text>
                <Text size="sm" c="dimmed">
                  {t(`start.steps.${s.key}.hint`)}
                </Text>
              </Stack>
              {can('write') && !s.done && (
                <Button component={Link} to={s.href} size="xs" variant={next?.key === s.key ? 'filled' : 'default'}>
                  {t(`start.steps.${s.key}.action`)}
                </Button>
              )}
            </Group>
          ))}
        </Stack>
        {!can('write') && (
          <Text size="sm" c="dimmed">
            {t('start.viewer')}
          </Text>
        )}
      </Stack>
    </Paper>
  );
}
