/**
 * The first-run checklist on an empty installation: add a storage target, create a task, run it.
 * Each step is done from what the API reports; the next step is the first one not done. Pure: unit-tested.
 */
export type StepKey = 'target' | 'task' | 'run';

export interface Step {
  key: StepKey;
  done: boolean;
  href: string;
}

export function gettingStartedSteps(facts: { targets: number; tasks: number; records: number }): Step[] {
  return [
    { key: 'target', done: facts.targets > 0, href: '/targets/new' },
    { key: 'task', done: facts.tasks > 0, href: '/tasks/new' },
    // "Run it" opens the task list, where each task has its run button.
    { key: 'run', done: facts.records > 0, href: '/tasks' },
  ];
}

/** The checklist shows until the first backup has run. */
export function needsGettingStarted(facts: { targets: number; tasks: number; records: number }): boolean {
  return facts.records === 0;
}

/** The step to act on now (null when every step is done). */
export function nextStep(steps: readonly Step[]): Step | null {
  return steps.find((s) => !s.done) ?? null;
}
