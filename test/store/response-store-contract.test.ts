import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, describe, test } from 'node:test';
import { pino } from 'pino';
import type { ResponsesSettings } from '../../src/config/gateway-config.js';
import { GatewayError } from '../../src/errors/gateway-error.js';
import { BoundedResponseStore } from '../../src/responses-state/bounded-response-store.js';
import { conversationBefore } from '../../src/responses-state/conversation.js';
import type { StoredResponse } from '../../src/responses-state/stored-response.js';
import { openStore, parseStoreLocation } from '../../src/store/open-store.js';
import { migrate } from '../../src/store/sql/migrate.js';
import { MIGRATIONS } from '../../src/store/sql/migrations.js';
import { openPgDriver } from '../../src/store/sql/pg-driver.js';
import { openPgliteDriver } from '../../src/store/sql/pglite-driver.js';
import type { Store } from '../../src/store/store.js';
import { storeBackends } from '../support/store-backends.js';

// The stored responses of the Responses API (PRODUCT.md decision 17) behave the same on
// every backend: memory, PGlite and PostgreSQL — account scoping, retention, the size cap,
// deletion, and the conversation a previous_response_id rebuilds.

const backends = await storeBackends('response-store');
after(() => Promise.all(backends.map((backend) => backend.cleanup())));

const cases = [
  { name: 'memory', store: 'memory', skip: undefined as string | undefined, persistent: false },
  ...backends.map((backend) => ({ name: backend.name, store: backend.store, skip: backend.skip, persistent: true })),
];

const DAY_S = 24 * 60 * 60;
const MAX_BYTES = 16 * 1024 * 1024;
/** The default of responses.max_conversation_responses. */
const MAX_CHAIN_LENGTH = 1000;
const LIMITS = { maxResponses: MAX_CHAIN_LENGTH, maxBytes: MAX_BYTES };
const nowS = () => Math.floor(Date.now() / 1000);

function stored(id: string, fields: Partial<StoredResponse> = {}): StoredResponse {
  const createdAt = fields.createdAt ?? nowS();
  return {
    id,
    accountId: 'acme',
    createdAt,
    model: 'qwen3-32b',
    node: 'node-a',
    previousResponseId: null,
    depth: 1,
    response: {
      id,
      object: 'response',
      created_at: createdAt,
      status: 'completed',
      model: 'qwen3-32b',
      output: [
        {
          id: `msg_out_${id}`,
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: `answer of ${id}`, annotations: [] }],
        },
      ],
      usage: { input_tokens: 3, output_tokens: 4, total_tokens: 7 },
      metadata: {},
    },
    inputItems: [
      {
        id: `msg_in_${id}`,
        type: 'message',
        role: 'user',
        content: [{ type: 'input_text', text: `question of ${id}` }],
      },
    ],
    ...fields,
  };
}

for (const backend of cases) {
  describe(`response store contract: ${backend.name}`, { skip: backend.skip }, () => {
    let store: Store;
    let responses: BoundedResponseStore;
    let settings: ResponsesSettings = {
      retentionDays: 30,
      maxStoredBytes: 64 * 1024,
      maxStoredResponsesPerAccount: 100_000,
      maxStoredBytesPerAccount: 64 * 1024 * 1024,
      maxConversationResponses: MAX_CHAIN_LENGTH,
      maxConversationBytes: 16 * 1024 * 1024,
    };
    const logLines: string[] = [];
    const logger = pino(
      { level: 'info' },
      new Writable({
        write(chunk: Buffer, _encoding, callback) {
          logLines.push(chunk.toString());
          callback();
        },
      }),
    );
    const open = async () => {
      store = await openStore(parseStoreLocation(backend.store));
      responses = new BoundedResponseStore(store.responseRows, () => settings, logger);
    };

    after(() => store?.close());

    test('a saved response reads back as it was saved, only under its own account', async () => {
      await open();
      const first = stored('resp_a1', {
        previousResponseId: 'resp_a0',
        response: {
          ...stored('resp_a1').response,
          // A NUL escape and characters outside the BMP survive the round trip.
          output_text: 'nul \u0000 here; émoji 🧪; quote " backslash \\',
          metadata: { nested: { list: [1, 2.5, null, true] } },
        },
      });
      await responses.save(first);
      assert.deepEqual(await responses.get('acme', 'resp_a1'), first);
      assert.equal(await responses.get('globex', 'resp_a1'), undefined, "another account's id is not there");
      assert.equal(await responses.get('acme', 'resp_none'), undefined);
    });

    test('delete: only by its own account, once', async () => {
      await responses.save(stored('resp_d1'));
      assert.equal(await responses.delete('globex', 'resp_d1'), false, 'another account cannot delete it');
      assert.ok(await responses.get('acme', 'resp_d1'), 'and it is still there');
      assert.equal(await responses.delete('acme', 'resp_d1'), true);
      assert.equal(await responses.get('acme', 'resp_d1'), undefined);
      assert.equal(await responses.delete('acme', 'resp_d1'), false, 'a second delete finds nothing');
    });

    test('saving the same id again replaces the response', async () => {
      await responses.save(stored('resp_r1', { model: 'old' }));
      await responses.save(stored('resp_r1', { model: 'new', node: null }));
      const got = await responses.get('acme', 'resp_r1');
      assert.equal(got?.model, 'new');
      assert.equal(got?.node, null);
    });

    test('retention: a response older than retention_days is invisible, cannot be deleted, and is swept', async () => {
      settings = { ...settings, retentionDays: 1 };
      await responses.save(stored('resp_old', { createdAt: nowS() - 2 * DAY_S }));
      await responses.save(stored('resp_young', { createdAt: nowS() - DAY_S / 2 }));
      assert.equal(await responses.get('acme', 'resp_old'), undefined);
      assert.equal(await responses.delete('acme', 'resp_old'), false);
      assert.ok(await responses.get('acme', 'resp_young'), 'within a day it is readable');
      await responses.save(stored('resp_old2', { createdAt: nowS() - 3 * DAY_S }));
      await responses.save(stored('resp_old3', { createdAt: nowS() - 4 * DAY_S }));
      assert.equal(await store.responseRows.sweep(1), 1, 'a sweep deletes expired rows, at most `limit` of them');
      await responses.sweep();
      assert.equal(await store.responseRows.sweep(100), 0, 'the gateway sweep deleted every expired row');
      assert.ok(await responses.get('acme', 'resp_young'), 'the sweep leaves live rows alone');
      // Retention is fixed when a response is saved: a longer one later does not revive it.
      settings = { ...settings, retentionDays: 30 };
      assert.ok(await responses.get('acme', 'resp_young'));
    });

    test('size cap: a response larger than max_stored_bytes is not kept, with a warning; one within it is', async () => {
      settings = { ...settings, maxStoredBytes: 4096 };
      const big = stored('resp_big');
      big.inputItems = [
        { id: 'msg_big', type: 'message', role: 'user', content: [{ type: 'input_text', text: 'é'.repeat(2100) }] },
      ];
      await responses.save(big);
      assert.equal(await responses.get('acme', 'resp_big'), undefined);
      const warning = logLines
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((line) => line.response_id === 'resp_big');
      assert.equal(warning?.level, 40, 'logged at warn');
      assert.equal(warning?.max_stored_bytes, 4096);
      assert.ok(Number(warning?.bytes) > 4096, 'the size counts bytes, not characters');
      const fits = stored('resp_fits');
      fits.inputItems = [
        { id: 'msg_fits', type: 'message', role: 'user', content: [{ type: 'input_text', text: 'e'.repeat(3000) }] },
      ];
      await responses.save(fits);
      assert.deepEqual(await responses.get('acme', 'resp_fits'), fits);
      settings = { ...settings, maxStoredBytes: 64 * 1024 };
    });

    test('conversationBefore: every ancestor input then output, oldest first, and the last node', async () => {
      await responses.save(stored('resp_c1', { node: 'node-a' }));
      await responses.save(stored('resp_c2', { node: 'node-b', previousResponseId: 'resp_c1' }));
      await responses.save(stored('resp_c3', { node: 'node-c', previousResponseId: 'resp_c2' }));
      const { items, node } = await conversationBefore(responses, 'acme', 'resp_c3', LIMITS);
      assert.deepEqual(
        items.map((item) => item.id),
        ['msg_in_resp_c1', 'msg_out_resp_c1', 'msg_in_resp_c2', 'msg_out_resp_c2', 'msg_in_resp_c3', 'msg_out_resp_c3'],
      );
      assert.equal(node, 'node-c');
      assert.deepEqual((await conversationBefore(responses, 'acme', 'resp_c1', LIMITS)).items.length, 2);

      // A gone ancestor ends the chain there.
      await responses.delete('acme', 'resp_c2');
      assert.deepEqual(
        (await conversationBefore(responses, 'acme', 'resp_c3', LIMITS)).items.map((item) => item.id),
        ['msg_in_resp_c3', 'msg_out_resp_c3'],
      );
    });

    test("conversationBefore: an unknown, deleted or other account's id is 400 previous_response_not_found (as OpenAI answers)", async () => {
      for (const [account, id] of [
        ['acme', 'resp_unknown'],
        ['acme', 'resp_c2'],
        ['globex', 'resp_c3'],
      ] as const) {
        await assert.rejects(conversationBefore(responses, account, id, LIMITS), (error: unknown) => {
          assert.ok(error instanceof GatewayError);
          assert.equal(error.status, 400);
          assert.equal(error.code, 'previous_response_not_found');
          assert.equal(error.type, 'invalid_request_error');
          assert.equal(error.param, 'previous_response_id');
          assert.match(error.message, new RegExp(id));
          return true;
        });
      }
    });

    test("two accounts may hold the same id (a node's): a save never replaces another account's response", async () => {
      await responses.save(stored('resp_shared', { model: 'acme-model' }));
      await responses.save(stored('resp_shared', { accountId: 'globex', model: 'globex-model' }));
      assert.equal((await responses.get('acme', 'resp_shared'))?.model, 'acme-model', "acme's response stays acme's");
      assert.equal((await responses.get('globex', 'resp_shared'))?.model, 'globex-model');
      await responses.save(stored('resp_shared', { model: 'acme-again' }));
      assert.equal((await responses.get('acme', 'resp_shared'))?.model, 'acme-again', 'its own account replaces it');
      assert.equal((await responses.get('globex', 'resp_shared'))?.model, 'globex-model');
      assert.equal(await responses.delete('globex', 'resp_shared'), true);
      assert.equal(
        (await responses.get('acme', 'resp_shared'))?.model,
        'acme-again',
        "deleting globex's leaves acme's",
      );
    });

    const tooLong = (error: unknown) => {
      assert.ok(error instanceof GatewayError);
      assert.equal(error.status, 400);
      assert.equal(error.param, 'previous_response_id');
      assert.match(error.message, new RegExp(`more than ${MAX_CHAIN_LENGTH} stored responses`));
      return true;
    };

    test('depth: a response whose chain is past the limit is refused at once, its ancestors unread', async () => {
      await responses.save(stored('resp_deep_root'));
      await responses.save(stored('resp_deep', { previousResponseId: 'resp_deep_root', depth: MAX_CHAIN_LENGTH + 1 }));
      await assert.rejects(conversationBefore(responses, 'acme', 'resp_deep', LIMITS), tooLong);
      const read = await responses.chain('acme', 'resp_deep', LIMITS);
      assert.deepEqual(
        read.map((link) => link.stored.id),
        ['resp_deep'],
        'the chain read stops at the response whose depth is past the limit',
      );
      await responses.save(stored('resp_at_limit', { previousResponseId: 'resp_deep_root', depth: MAX_CHAIN_LENGTH }));
      const atLimit = await conversationBefore(responses, 'acme', 'resp_at_limit', LIMITS);
      assert.equal(atLimit.responses, 2, 'a depth within the limit is walked');
    });

    test('responses saved without a depth (before it was kept) are walked, and the walk is bounded', async () => {
      await responses.save(stored('resp_nd1', { depth: null }));
      await responses.save(stored('resp_nd2', { depth: null, previousResponseId: 'resp_nd1' }));
      const walked = await conversationBefore(responses, 'acme', 'resp_nd2', LIMITS);
      assert.deepEqual(
        walked.items.map((item) => item.id),
        ['msg_in_resp_nd1', 'msg_out_resp_nd1', 'msg_in_resp_nd2', 'msg_out_resp_nd2'],
      );
      assert.equal(walked.responses, 2);
      for (let index = 0; index <= MAX_CHAIN_LENGTH; index++) {
        await responses.save(
          stored(`resp_long${index}`, {
            depth: null,
            previousResponseId: index === 0 ? null : `resp_long${index - 1}`,
          }),
        );
      }
      await assert.rejects(conversationBefore(responses, 'acme', `resp_long${MAX_CHAIN_LENGTH}`, LIMITS), tooLong);
      const full = await conversationBefore(responses, 'acme', `resp_long${MAX_CHAIN_LENGTH - 1}`, LIMITS);
      assert.equal(full.responses, MAX_CHAIN_LENGTH, 'a chain of exactly the limit is read whole');
    });

    test('a chain that loops ends where it meets a response again', async () => {
      await responses.save(stored('resp_loop1', { previousResponseId: 'resp_loop2' }));
      await responses.save(stored('resp_loop2', { previousResponseId: 'resp_loop1' }));
      const looped = await conversationBefore(responses, 'acme', 'resp_loop2', LIMITS);
      assert.equal(looped.responses, 2);
    });

    test('a stored conversation larger than max_conversation_bytes is refused (400)', async () => {
      const { items } = await conversationBefore(responses, 'acme', 'resp_c3', LIMITS);
      assert.ok(items.length > 0);
      await assert.rejects(
        conversationBefore(responses, 'acme', 'resp_c3', { maxResponses: MAX_CHAIN_LENGTH, maxBytes: 200 }),
        (error: unknown) => {
          assert.ok(error instanceof GatewayError);
          assert.equal(error.status, 400);
          assert.equal(error.param, 'previous_response_id');
          assert.match(error.message, /larger than 200 bytes/);
          return true;
        },
      );
    });

    test('quota: an account at max_stored_responses_per_account stores no more, others do; a delete makes room', async () => {
      const before = settings;
      settings = { ...settings, maxStoredResponsesPerAccount: 2 };
      try {
        await responses.save(stored('resp_q1', { accountId: 'quota' }));
        assert.equal(responses.isFull('quota'), false);
        await responses.save(stored('resp_q2', { accountId: 'quota' }));
        assert.equal(responses.isFull('quota'), true, 'full from the save that filled it');
        await responses.save(stored('resp_q3', { accountId: 'quota' }));
        assert.equal(await responses.get('quota', 'resp_q3'), undefined, 'not stored');
        assert.ok(
          logLines.some((line) => line.includes('resp_q3') && line.includes("the account's stored responses are full")),
        );
        await responses.save(stored('resp_q2', { accountId: 'quota', model: 'again' }));
        assert.equal((await responses.get('quota', 'resp_q2'))?.model, 'again', 'its own response is still replaced');
        assert.equal(responses.isFull('quota-other'), false);
        await responses.save(stored('resp_q1', { accountId: 'quota-other' }));
        assert.ok(await responses.get('quota-other', 'resp_q1'), 'another account still stores');
        assert.equal(await responses.delete('quota', 'resp_q1'), true);
        assert.equal(responses.isFull('quota'), false, 'a delete of its own makes room');
        await responses.save(stored('resp_q3', { accountId: 'quota' }));
        assert.ok(await responses.get('quota', 'resp_q3'));
      } finally {
        settings = before;
      }
    });

    test('quota: an account at max_stored_bytes_per_account stores no more', async () => {
      const before = settings;
      const one = stored('resp_b1', { accountId: 'quota-bytes' });
      const size = Buffer.byteLength(JSON.stringify(one.response)) + Buffer.byteLength(JSON.stringify(one.inputItems));
      settings = { ...settings, maxStoredBytesPerAccount: size + 1 };
      try {
        await responses.save(one);
        assert.equal(responses.isFull('quota-bytes'), false, `${size} bytes of ${size + 1}`);
        await responses.save(stored('resp_b2', { accountId: 'quota-bytes' }));
        assert.ok(await responses.get('quota-bytes', 'resp_b2'), 'one response may take it over the quota');
        assert.equal(responses.isFull('quota-bytes'), true);
        await responses.save(stored('resp_b3', { accountId: 'quota-bytes' }));
        assert.equal(await responses.get('quota-bytes', 'resp_b3'), undefined);
      } finally {
        settings = before;
      }
    });

    test("holdingItems: the account's responses holding a node's item ids, and no other account's", async () => {
      const node = stored('resp_node1');
      node.response = {
        ...node.response,
        output: [{ id: 'msg_node_made_1', type: 'message', role: 'assistant', content: [] }],
      };
      await responses.save(node);
      const held = await responses.holdingItems('acme', ['msg_node_made_1', 'msg_node_unknown']);
      assert.deepEqual(
        held.map((response) => response.id),
        ['resp_node1'],
      );
      assert.deepEqual(await responses.holdingItems('globex', ['msg_node_made_1']), []);
    });

    test('an id no store could hold (a NUL byte, too long) is not there, without an error', async () => {
      for (const id of ['resp_\u0000x', 'resp_ x', `resp_${'x'.repeat(300)}`]) {
        assert.equal(await responses.get('acme', id), undefined);
        assert.equal(await responses.delete('acme', id), false);
        assert.deepEqual(await responses.holdingItems('acme', [id]), []);
        await assert.rejects(
          conversationBefore(responses, 'acme', id, LIMITS),
          (error: unknown) => error instanceof GatewayError && error.code === 'previous_response_not_found',
        );
      }
    });

    test('size: every response kept, and its bytes', async () => {
      const before = await responses.size();
      const extra = stored('resp_size1');
      await responses.save(extra);
      const after = await responses.size();
      assert.equal(after.count, before.count + 1);
      assert.equal(
        after.bytes - before.bytes,
        Buffer.byteLength(JSON.stringify(extra.response)) + Buffer.byteLength(JSON.stringify(extra.inputItems)),
      );
    });

    test('reopening keeps stored responses (persistent stores)', { skip: !backend.persistent }, async () => {
      const kept = await responses.get('acme', 'resp_c3');
      assert.ok(kept);
      await store.close();
      await open();
      assert.deepEqual(await responses.get('acme', 'resp_c3'), kept);
    });
  });
}

// Rows saved before migration 9 (no depth, keyed by id alone) still read, chain and delete.
const upgradeBackends = await storeBackends('response-store-upgrade');
after(() => Promise.all(upgradeBackends.map((backend) => backend.cleanup())));

for (const backend of upgradeBackends) {
  describe(`a ${backend.name} store with responses saved before migration 9`, { skip: backend.skip }, () => {
    test('its responses read and chain as before; two accounts may then hold the same id', async () => {
      const location = parseStoreLocation(backend.store);
      const driver =
        location.kind === 'pglite' ? await openPgliteDriver(location.dataDir) : await openPgDriver(backend.store);
      try {
        await migrate(driver, MIGRATIONS.slice(0, 7));
        for (const [id, previous] of [
          ['resp_legacy1', null],
          ['resp_legacy2', 'resp_legacy1'],
        ] as const) {
          const old = stored(id, { previousResponseId: previous });
          await driver.query(
            `INSERT INTO responses (id, account_id, created_at, expires_at, model, node, previous_response_id, response, input_items)
             VALUES ($1, 'acme', now(), now() + interval '1 day', 'qwen3-32b', 'node-a', $2, $3, $4)`,
            [id, previous, JSON.stringify(old.response), JSON.stringify(old.inputItems)],
          );
        }
      } finally {
        await driver.close();
      }
      const store = await openStore(location);
      try {
        const settings: ResponsesSettings = {
          retentionDays: 30,
          maxStoredBytes: 64 * 1024,
          maxStoredResponsesPerAccount: 100,
          maxStoredBytesPerAccount: 1024 * 1024,
          maxConversationResponses: MAX_CHAIN_LENGTH,
          maxConversationBytes: 1024 * 1024,
        };
        const responses = new BoundedResponseStore(store.responseRows, () => settings, pino({ level: 'silent' }));
        const legacy = await responses.get('acme', 'resp_legacy2');
        assert.equal(legacy?.depth, null, 'no depth was kept then');
        const conversation = await conversationBefore(responses, 'acme', 'resp_legacy2', LIMITS);
        assert.deepEqual(
          conversation.items.map((item) => item.id),
          ['msg_in_resp_legacy1', 'msg_out_resp_legacy1', 'msg_in_resp_legacy2', 'msg_out_resp_legacy2'],
        );
        assert.ok((await responses.size()).bytes > 0, 'their bytes are counted');
        await responses.save(stored('resp_legacy2', { accountId: 'globex', model: 'globex-model' }));
        assert.equal((await responses.get('acme', 'resp_legacy2'))?.model, 'qwen3-32b');
        assert.equal(await responses.delete('acme', 'resp_legacy1'), true);
      } finally {
        await store.close();
      }
    });
  });
}
