import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  composeCommand,
  isBandwidth,
  manualAgentCommand,
  nodeBody,
  parseLabels,
  shQuote,
} from '../../packages/console/src/features/nodes/node-form.ts';

test('bandwidth limits as the API accepts them', () => {
  for (const ok of ['', '10M', '1.5G', '512K', '100', ' 20M ']) assert.ok(isBandwidth(ok), ok);
  for (const bad of ['10 MB', '1.2345M', '-1', 'fast', '10T']) assert.ok(!isBandwidth(bad), bad);
});

test('labels: CSV in, list out, blanks and repeats dropped', () => {
  assert.deepEqual(parseLabels(''), []);
  assert.deepEqual(parseLabels(' prod, eu ,,prod'), ['prod', 'eu']);
});

test('node body: trimmed; the local node never sends concurrency or bandwidth', () => {
  const values = { name: ' web-1 ', labels: ['prod', ' prod ', ''], maxConcurrent: 3.7, bandwidthLimit: ' 10M ' };
  assert.deepEqual(nodeBody(values), { name: 'web-1', labels: ['prod'], maxConcurrent: 3, bandwidthLimit: '10M' });
  assert.deepEqual(nodeBody(values, true), { name: 'web-1', labels: ['prod'] });
  assert.equal(nodeBody({ ...values, maxConcurrent: 99 }).maxConcurrent, 64);
  assert.equal(nodeBody({ ...values, maxConcurrent: Number.NaN }).maxConcurrent, 0);
});

test('commands quote what the shell would read otherwise', () => {
  assert.equal(shQuote('https://m.example/install/bpi_abc'), 'https://m.example/install/bpi_abc');
  assert.equal(shQuote("it's"), `'it'\\''s'`);
  assert.equal(
    composeCommand('https://m.example/install/x/compose.yml'),
    'curl -fsSL https://m.example/install/x/compose.yml -o backplane-agent-compose.yml && docker compose -f backplane-agent-compose.yml up -d',
  );
  assert.equal(
    manualAgentCommand('http://10.0.0.1:8340', 'bpn_1 2'),
    "BACKPLANE_AGENT_TOKEN='bpn_1 2' npm run agent -- --master http://10.0.0.1:8340",
  );
});
