import type { ReactNode } from 'react';
import { Fieldset } from '@mantine/core';

/** One titled group of the task form. */
export function FormSection({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Fieldset legend={title} mb="md">
      {children}
    </Fieldset>
  );
}
