import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { build, call, setupAdmin } from '../helpers/build.ts';
import { loadModules } from '../../core/app-modules.ts';
import { singletonNames } from '../../core/container.ts';
import { defineModule } from '../../core/lib/app-module.ts';
import { lifecycleOrder } from '../../core/lib/service-lifecycle.ts';
import type { Greeter } from '../fixtures/modules/greetings/greeter.ts';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'modules');

test('a feature folder registers itself: its service, its route and its lifecycle, with nothing else edited', async (t) => {
  const { app } = await build(t, { build: { moduleDirs: [FIXTURES] } });
  const admin = await setupAdmin(app);
  assert.equal((await call(app, 'GET', '/api/greetings/ada')).status, 401, 'its access label is enforced');
  const res = await call(app, 'GET', '/api/greetings/ada', { token: admin });
  assert.equal(res.status, 200, res.body);
  assert.equal(res.json.data.text, 'hello ada (1); audit is here');
  const greeter = (app.diContainer.cradle as unknown as { greeter: Greeter }).greeter;
  assert.deepEqual(greeter.events, ['start']);
  const order = app.lifecycles.order;
  assert.ok(
    order.indexOf('greeter:always') > order.indexOf('backupRuns:always'),
    `started after what it names: ${order.join(' ')}`,
  );
  await app.close();
  assert.deepEqual(greeter.events, ['start', 'stop']);
});

test('every service that can stop is stopped: a singleton with a stop() and no lifecycle fails here', async (t) => {
  const { app } = await build(t);
  const modules = await loadModules();
  const stoppable = app.lifecycles.stoppable;
  const cradle = app.diContainer.cradle as unknown as Record<string, unknown>;
  const missing = singletonNames(app.diContainer as never, modules).filter((name) => {
    const service = cradle[name] as { stop?: unknown; close?: unknown } | undefined;
    const stops = [service?.stop, service?.close].some(
      (f) => typeof f === 'function' && (f as () => unknown).length === 0,
    );
    return stops && !stoppable.has(name);
  });
  assert.deepEqual(missing, [], 'registered with a stop() that no lifecycle calls');
  assert.ok(stoppable.size >= 15, `the master's services are covered (${stoppable.size})`);
  assert.ok(app.lifecycles.running.length > 0);
  await app.close();
  assert.deepEqual(app.lifecycles.running, [], 'nothing left running after close');
});

test('start order comes from declared dependencies; an unknown name or a cycle is refused', () => {
  const noop = { start: () => undefined };
  const svc = { resolve: () => ({}) } as never;
  const m = (name: string, lifecycle: Record<string, { runs: 'always'; after?: string[] }>) =>
    defineModule({
      name,
      services: Object.fromEntries(Object.keys(lifecycle).map((k) => [k, svc])),
      lifecycle: Object.fromEntries(Object.entries(lifecycle).map(([k, l]) => [k, { ...l, ...noop }])),
    });
  const order = lifecycleOrder([
    m('a', { c: { runs: 'always', after: ['b'] } }),
    m('b', { b: { runs: 'always', after: ['a'] }, a: { runs: 'always' } }),
  ]).map((e) => e.name);
  assert.deepEqual(order, ['a', 'b', 'c']);
  assert.throws(
    () => lifecycleOrder([m('a', { x: { runs: 'always', after: ['y'] }, y: { runs: 'always', after: ['x'] } })]),
    /cycle: x -> y -> x/,
  );
  assert.throws(
    () => lifecycleOrder([m('a', { x: { runs: 'always', after: ['nowhere'] } })]),
    /"nowhere", which has no lifecycle/,
  );
});

test("the master's real order: recovery before the lease monitor before the scheduler; delivery stops last", async (t) => {
  const { app } = await build(t);
  const order = app.lifecycles.order.map((e) => e.split(':')[0]);
  const at = (name: string) => order.indexOf(name);
  assert.ok(at('deadMasters') < at('leaseMonitor') && at('leaseMonitor') < at('scheduler'), order.join(' '));
  assert.ok(at('deadMasters') < at('temporarySweep') && at('deadMasters') < at('recordDeleter'));
  assert.ok(
    at('backupRuns') < at('scheduler') && at('backupRuns') < at('runTimeLimits'),
    'runs stop after what starts them',
  );
  for (const raiser of [
    'backupRuns',
    'restores',
    'verifications',
    'replications',
    'nodeMonitor',
    'slaScan',
    'deadMasters',
    'storageHealth',
  ]) {
    assert.ok(at('deliveryWorker') < at(raiser), `${raiser} stops before the delivery worker`);
  }
});
