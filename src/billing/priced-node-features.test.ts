import assert from 'node:assert/strict';
import { test } from 'node:test';
import { allowsServiceTier, forwardedBetas, pricedServerTool, serverToolName } from './priced-node-features.js';
import { modelConfig } from '../../test/support/model-config.js';

// Issue 28 finding 10: which tools and betas a node bills apart, by name.

test('a server tool is named by its type without the version date and _preview', () => {
  assert.equal(serverToolName('web_search_20250305'), 'web_search');
  assert.equal(serverToolName('web_search_preview_2025_03_11'), 'web_search');
  assert.equal(serverToolName('web_search_preview'), 'web_search');
  assert.equal(serverToolName('code_execution_20250825'), 'code_execution');
});

test('only the tools a node runs and bills are priced; client-run typed tools are not', () => {
  assert.equal(pricedServerTool('messages', 'web_fetch_20250910'), 'web_fetch');
  assert.equal(pricedServerTool('messages', 'bash_20250124'), undefined);
  assert.equal(pricedServerTool('messages', 'text_editor_20250728'), undefined);
  assert.equal(pricedServerTool('messages', undefined), undefined);
  assert.equal(pricedServerTool('responses', 'code_interpreter'), 'code_interpreter');
  assert.equal(pricedServerTool('responses', 'function'), undefined);
  assert.equal(pricedServerTool('responses', 'shell'), undefined);
});

test('priced betas are dropped unless listed; the others pass; a listed beta is priced whatever its name', () => {
  const none = forwardedBetas('claude-code-20250219, context-1m-2025-08-07,effort-2025-11-24', undefined);
  assert.deepEqual(none, { header: 'claude-code-20250219,effort-2025-11-24', priced: [] });
  assert.deepEqual(forwardedBetas('context-1m-2025-08-07', undefined), { header: undefined, priced: [] });
  const pricing = {
    input: 6,
    output: 22.5,
    cachedInput: undefined,
    cacheWrite: undefined,
    cacheWrite1h: undefined,
    reasoning: undefined,
  };
  const listed = {
    serverTools: new Map(),
    serviceTiers: new Map(),
    betas: new Map([
      ['context-1m-2025-08-07', { pricing, minPromptTokens: 200_000 }],
      ['output-128k-2025-02-19', { pricing, minPromptTokens: 0 }],
    ]),
  };
  assert.deepEqual(forwardedBetas('context-1m-2025-08-07,output-128k-2025-02-19,x', listed), {
    header: 'context-1m-2025-08-07,output-128k-2025-02-19,x',
    priced: ['context-1m-2025-08-07', 'output-128k-2025-02-19'],
  });
  assert.deepEqual(forwardedBetas(undefined, listed), { header: undefined, priced: [] });
});

test('a service tier reaches the node when the model lists it, or when it asks for the standard tier', () => {
  const model = modelConfig();
  assert.deepEqual(
    ['priority', 'auto', 'flex', 'default', 'standard_only', 7].map((tier) => allowsServiceTier(model, tier)),
    [false, false, false, true, true, false],
  );
});
