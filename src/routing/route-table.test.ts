import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ModelConfig, NodeConfig } from '../config/gateway-config.js';
import { RouteTable, type RouteView } from './route-table.js';

const node = (id: string) => ({ id }) as NodeConfig;
const model = (id: string, nodeId: string) =>
  ({ id, routes: [{ nodeId, upstreamModel: id, weight: 1, priority: 0 }] }) as unknown as ModelConfig;
const runtimeNode = (id: string, modelId: string) => ({
  node: node(id),
  routes: [{ model: modelId, upstreamModel: modelId, weight: 1, priority: 0 }],
});
const nodesOf = (view: RouteView, modelId: string) => view.routes(modelId).map((route) => route.nodeId);

test('a view keeps the routes of its moment: later configurations and runtime nodes make new views', () => {
  const table = new RouteTable([model('m', 'x')], [node('x')]);
  const first = table.view();
  table.addRuntimeNode(runtimeNode('extra', 'm'));
  const withExtra = table.view();
  table.setConfig([model('m', 'y')], [node('y')]);
  assert.deepEqual(nodesOf(first, 'm'), ['x']);
  assert.deepEqual(nodesOf(withExtra, 'm'), ['x', 'extra']);
  assert.deepEqual(nodesOf(table.view(), 'm'), ['y', 'extra'], 'the runtime node survives the reload');
  assert.deepEqual(nodesOf(first, 'unknown'), []);
  assert.ok(Object.isFrozen(first) && Object.isFrozen(first.routes('m')), 'a view and its route lists are frozen');
});

test('a runtime node added or removed reports the new view; a configuration set does not', () => {
  const table = new RouteTable([model('m', 'x')], [node('x')]);
  const reported: RouteView[] = [];
  table.onRuntimeChange = (view) => reported.push(view);
  table.setConfig([model('m', 'x')], [node('x')]);
  assert.equal(reported.length, 0);
  table.addRuntimeNode(runtimeNode('extra', 'm'));
  table.removeRuntimeNode('extra');
  assert.equal(reported.length, 2);
  assert.deepEqual(nodesOf(reported[0] as RouteView, 'm'), ['x', 'extra']);
  assert.equal(reported[1], table.view());
  assert.deepEqual(nodesOf(table.view(), 'm'), ['x']);
});
