import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gatewayError, invalidValue, validationFailed } from './gateway-error.js';
import { because, phrase, PHRASES, REASONS, renderPhrase, renderReason } from './reasons.js';
import { MAX_DISPLAY_CHARS } from './truncate-for-display.js';

const CYRILLIC = /[\u0400-\u04FF]/;

/** Params for any template: every name gets a value (a number where a template may compute with it). */
const anyParams = new Proxy({} as Record<string, string>, {
  get: (_, name) => (name === 'unit' ? 'items' : `<${String(name)}>`),
});

test('every phrase and every reason renders non-empty text in both languages, English without Cyrillic', () => {
  const registries = { PHRASES, REASONS } as unknown as Record<
    string,
    Record<string, Record<'en' | 'ru', (params: unknown) => string>>
  >;
  for (const [registry, entries] of Object.entries(registries)) {
    assert.ok(Object.keys(entries).length > 10, registry);
    for (const [id, texts] of Object.entries(entries)) {
      const en = texts.en(anyParams);
      const ru = texts.ru(anyParams);
      assert.ok(en.trim() !== '' && ru.trim() !== '', `${registry}.${id}`);
      assert.doesNotMatch(en, CYRILLIC, `${registry}.${id} in English`);
      assert.doesNotMatch(en, /undefined|\[object/, `${registry}.${id} in English`);
      assert.doesNotMatch(ru, /undefined|\[object/, `${registry}.${id} in Russian`);
    }
  }
});

test("a reason renders in the caller's language, with its phrase and the error's param", () => {
  const error = invalidValue('messages[0].content', 'required');
  assert.equal(error.code, 'validation_failed');
  assert.equal(error.param, 'messages[0].content');
  assert.equal(error.message, "Invalid parameter 'messages[0].content': it is required.");
  assert.equal(error.localizedMessage('en'), error.message);
  assert.equal(error.localizedMessage('ru'), "Некорректный параметр 'messages[0].content': обязателен.");
  assert.equal(
    renderReason(because('too_many_messages', { count: 5, limit: 4 }), 'ru', null),
    'Слишком много сообщений: 5; допускается не более 4.',
  );
  assert.equal(renderPhrase(phrase('of_type', { types: 'integer,null' }), 'en'), 'must be an integer or a null');
});

test('codes that carry a reason frame it; without one they keep their default', () => {
  const denied = gatewayError('access_denied', { reason: because('model_not_allowed', { model: 'm' }) });
  assert.equal(denied.message, 'Access denied: this key may not use the model "m".');
  assert.equal(denied.localizedMessage('ru'), 'Доступ запрещён: этому ключу не разрешена модель "m".');
  assert.equal(gatewayError('access_denied').message, 'Access denied: the account policy does not allow this request.');
  const conflict = gatewayError('conflict', { reason: because('account_exists', { id: 'acme' }) });
  assert.equal(conflict.localizedMessage('ru'), 'Конфликт: аккаунт "acme" уже существует.');
  assert.equal(gatewayError('validation_failed').localizedMessage('ru'), 'Некорректный запрос.');
});

test("client strings in a reason's params and phrases are cut for display, in every language", () => {
  const long = 'z'.repeat(100_000);
  const marker = `${'z'.repeat(MAX_DISPLAY_CHARS)}…[+${100_000 - MAX_DISPLAY_CHARS} chars]`;
  const unknown = validationFailed('models[0].model', 'unknown_model', { model: long });
  assert.equal(unknown.message, `Unknown model "${marker}".`);
  assert.equal(unknown.localizedMessage('ru'), `Неизвестная модель "${marker}".`);
  const offered = validationFailed('tool_choice.name', 'invalid_parameter', {
    what: phrase('tool_not_offered', { type: 'function', name: long }),
  });
  assert.ok(offered.message.includes(marker) && offered.message.length < 400, offered.message.slice(0, 80));
  assert.ok(offered.localizedMessage('ru').includes(marker) && offered.localizedMessage('ru').length < 400);
  const path = invalidValue(`logit_bias.${long}`, 'required');
  assert.equal(path.param?.length, MAX_DISPLAY_CHARS + `…[+${100_000 + 11 - MAX_DISPLAY_CHARS} chars]`.length);
  assert.ok(path.message.includes(path.param ?? '-'));
});
