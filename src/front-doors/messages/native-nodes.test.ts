import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { NativeApi } from '../../config/gateway-config.js';
import type { AnthropicVersion } from '../../config/wire-protocols.js';
import { isGatewayError } from '../../errors/gateway-error.js';
import type { DoorNode, ModelNodesView } from '../../pipeline/front-door.js';
import { modelConfig } from '../../../test/support/model-config.js';
import { nativeNodes } from './native-nodes.js';

function node(id: string, apis: NativeApi[], anthropicVersion: AnthropicVersion = '2023-06-01'): DoorNode {
  return { node: { id, nativeApis: new Set(apis), anthropicVersion }, isAvailable: () => true };
}

function view(nodes: readonly DoorNode[]): ModelNodesView {
  return { nodesOf: () => nodes, node: (id) => nodes.find((candidate) => candidate.node.id === id) };
}

const model = modelConfig({ id: 'm' });
const assistantDocument = [{ role: 'assistant', content: [{ type: 'document', source: {} }] }];

test('a model whose every node serves Messages is native-only; one translated node makes it not', () => {
  assert.deepEqual(nativeNodes(view([node('a', ['messages'])]), model, []), { only: true, some: true });
  assert.deepEqual(nativeNodes(view([node('a', ['messages']), node('b', [])]), model, []), {
    only: false,
    some: true,
  });
  assert.deepEqual(nativeNodes(view([node('b', [])]), model, []), { only: false, some: false });
  assert.deepEqual(nativeNodes(view([]), model, []), { only: false, some: false }, 'no node: not native-only');
  assert.deepEqual(nativeNodes(view([node('a', ['messages'])]), undefined, []), { only: false, some: false });
});

test('content API version 2026-10-21 refuses is a 400 when a Messages node of the model is on that version', () => {
  const strict = node('s', ['messages'], '2026-10-21');
  assert.throws(
    () => nativeNodes(view([node('b', []), strict]), model, assistantDocument),
    (error: unknown) => isGatewayError(error) && error.status === 400,
  );
  assert.doesNotThrow(() => nativeNodes(view([node('a', ['messages'])]), model, assistantDocument));
  assert.doesNotThrow(() => nativeNodes(view([node('b', [], '2026-10-21')]), model, assistantDocument));
});
