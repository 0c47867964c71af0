/**
 * The registry of reasons: why a request was refused, in every language we answer in
 * (PRODUCT.md decision 10), for the codes whose message carries one (`validation_failed`,
 * `access_denied`, `conflict`; see codes.ts). Call sites name a reason and its params,
 * never a sentence: `validationFailed('messages', 'too_many_messages', { count, limit })`.
 *
 * A reason is a whole sentence. A phrase is a part of one (what a parameter must be, what
 * a node cannot take), put into a sentence by a reason such as `invalid_parameter`; the
 * configuration loader also shows the schema phrases on their own, in English. Templates
 * get their params as given (client strings already cut for display, see gateway-error.ts);
 * a reason's template also gets `param`, the error's parameter as shown (empty when none).
 */
import type { Language } from './codes.js';

/** A value a phrase or reason puts into its text. */
export type ReasonValue = string | number;

type NoParams = Record<never, never>;
type PhraseInput = Readonly<Record<string, ReasonValue | undefined>>;

/** The texts of one phrase or reason: a template per language, both taking the same params. */
interface Texts<P> {
  readonly en: (params: P) => string;
  readonly ru: (params: P) => string;
}

/** The arguments after an id: none for a text without params; its params, optional when all are. */
type ArgsOf<P> = keyof P extends never ? [] : NoParams extends P ? [params?: P] : [params: P];

function phraseTexts<P extends PhraseInput = NoParams>(texts: Texts<P>): Texts<P> {
  return texts;
}

/** `integer` → `an integer`, `string,null` → `a string or a null`. */
function article(types: string): string {
  return types
    .split(',')
    .map((name) =>
      name === 'integer' ? 'an integer' : name === 'object' || name === 'array' ? `an ${name}` : `a ${name}`,
    )
    .join(' or ');
}

const INVALID_VALUE_RU = 'имеет недопустимое значение';

/** Parts of sentences, mostly what a parameter must be; a reason puts them in a sentence. */
export const PHRASES = {
  // What a JSON schema check found (validation/describe-schema-error.ts); also the configuration's words.
  required: phraseTexts({ en: () => 'is required', ru: () => 'обязателен' }),
  unknown_field: phraseTexts({ en: () => 'is not a known field', ru: () => 'не является известным полем' }),
  /** `types`: JSON types, comma-separated. */
  of_type: phraseTexts<{ types: string }>({
    en: (p) => `must be ${article(p.types)}`,
    ru: (p) => `должен иметь тип ${p.types.split(',').join(' или ')}`,
  }),
  compared: phraseTexts<{ comparison: string; limit: number }>({
    en: (p) => `must be ${p.comparison} ${p.limit}`,
    ru: (p) => `должен быть ${p.comparison} ${p.limit}`,
  }),
  not_empty: phraseTexts({ en: () => 'must not be empty', ru: () => 'не должен быть пустым' }),
  at_least: phraseTexts<{ limit: number; unit: 'items' | 'characters' }>({
    en: (p) => `must have at least ${p.limit} ${p.unit}`,
    ru: (p) => `должен содержать не меньше ${p.limit} ${p.unit === 'items' ? 'элементов' : 'символов'}`,
  }),
  at_most: phraseTexts<{ limit: number; unit: 'items' | 'characters' }>({
    en: (p) => `must have at most ${p.limit} ${p.unit}`,
    ru: (p) => `должен содержать не больше ${p.limit} ${p.unit === 'items' ? 'элементов' : 'символов'}`,
  }),
  /** `values`: the allowed values, comma-separated. */
  one_of: phraseTexts<{ values: string }>({
    en: (p) => `must be one of ${p.values}`,
    ru: (p) => `должен быть одним из: ${p.values}`,
  }),
  matches: phraseTexts<{ pattern: string }>({
    en: (p) => `must match ${p.pattern}`,
    ru: (p) => `должен соответствовать шаблону ${p.pattern}`,
  }),
  has_invalid_value: phraseTexts({ en: () => 'has an invalid value', ru: () => INVALID_VALUE_RU }),
  /** Any other schema rule: `rule` is the validator's own English words for it. */
  breaks_rule: phraseTexts<{ rule?: string }>({ en: (p) => p.rule ?? 'is invalid', ru: () => INVALID_VALUE_RU }),
  /** A check of a node's configuration (admin API): its own English words, in every language. */
  config_check: phraseTexts<{ problem: string }>({ en: (p) => p.problem, ru: (p) => p.problem }),

  // Chat-completions checks beyond the schema.
  required_without_tool_calls: phraseTexts({
    en: () => 'is required for an assistant message without tool_calls',
    ru: () => 'обязателен для сообщения assistant без tool_calls',
  }),
  required_for_tool_message: phraseTexts({
    en: () => 'is required for a tool message',
    ru: () => 'обязателен для сообщения tool',
  }),
  nested_too_deep: phraseTexts<{ limit: number }>({
    en: (p) => `nests arrays and objects more than ${p.limit} levels deep`,
    ru: (p) => `массивы и объекты вложены глубже ${p.limit} уровней`,
  }),
  finite_number: phraseTexts({
    en: () => 'must be a finite number; this one is too large',
    ru: () => 'число должно быть конечным, это слишком велико',
  }),
  at_most_choices: phraseTexts<{ limit: number }>({
    en: (p) => `at most ${p.limit} choices are accepted`,
    ru: (p) => `допускается не более ${p.limit} вариантов`,
  }),
  at_least_one_message: phraseTexts({
    en: () => 'at least one message is required',
    ru: () => 'нужно хотя бы одно сообщение',
  }),
  /** `efforts`: the efforts the model takes; absent when it does not reason. */
  effort_not_taken: phraseTexts<{ model: string; effort: string; efforts?: string }>({
    en: (p) =>
      `the model "${p.model}" does not take the effort "${p.effort}"; ${p.efforts === undefined ? 'it does not reason' : `it takes ${p.efforts}`}`,
    ru: (p) =>
      `модель "${p.model}" не принимает уровень "${p.effort}"; ${p.efforts === undefined ? 'модель не поддерживает рассуждения' : 'допустимы только перечисленные в конфигурации модели значения'}`,
  }),

  // Shapes of content, tools and tool calls (front doors and translating adapters).
  must_be_string: phraseTexts({ en: () => 'must be a string', ru: () => 'ожидается строка' }),
  must_be_non_empty_string: phraseTexts({
    en: () => 'must be a non-empty string',
    ru: () => 'должен быть непустой строкой',
  }),
  must_be_object: phraseTexts({ en: () => 'must be an object', ru: () => 'ожидается объект' }),
  must_be_url: phraseTexts({ en: () => 'must be a URL', ru: () => 'ожидается URL' }),
  must_be_string_or_blocks: phraseTexts({
    en: () => 'must be a string or blocks',
    ru: () => 'ожидается строка или блоки',
  }),
  must_be_string_or_parts: phraseTexts({
    en: () => 'must be a string or an array of parts',
    ru: () => 'должен быть строкой или массивом частей',
  }),
  must_be_content_block: phraseTexts({ en: () => 'must be a content block', ru: () => 'ожидается блок содержимого' }),
  must_be_tool_use_id: phraseTexts({
    en: () => 'must be the id of a tool_use block',
    ru: () => 'ожидается id блока tool_use',
  }),
  refused_by_api_version: phraseTexts<{ what: string; version: string }>({
    en: (p) => `holds ${p.what}, which Anthropic API version ${p.version} (spoken by a node of this model) refuses`,
    ru: (p) =>
      `содержит то, что версия API Anthropic ${p.version} (на ней работает узел этой модели) не принимает: ${p.what}`,
  }),
  block_in_assistant_only: phraseTexts<{ type: string }>({
    en: (p) => `a "${p.type}" block belongs in an assistant turn`,
    ru: (p) => `блок "${p.type}" допустим только в ответе assistant`,
  }),
  base64_source_incomplete: phraseTexts({
    en: () => 'a base64 source needs media_type and data',
    ru: () => 'источнику base64 нужны media_type и data',
  }),
  input_schema_required: phraseTexts({
    en: () => 'a client tool needs an input_schema object',
    ru: () => 'инструменту нужен объект input_schema',
  }),
  required_with_tool_type: phraseTexts({
    en: () => 'is required with type "tool"',
    ru: () => 'обязателен при type "tool"',
  }),
  cache_control_shape: phraseTexts({
    en: () => 'expected an object such as {"type": "ephemeral", "ttl": "1h"}',
    ru: () => 'ожидается объект, например {"type": "ephemeral", "ttl": "1h"}',
  }),
  must_be_base64_data_url: phraseTexts({
    en: () => 'must be a base64 data URL (data:application/pdf;base64,…)',
    ru: () => 'ожидается data URL в base64 (data:application/pdf;base64,…)',
  }),
  needs_file_data: phraseTexts({ en: () => 'needs file_data', ru: () => 'нужно поле file_data' }),
  input_audio_shape: phraseTexts({
    en: () => 'expected {data: <base64>, format: "wav" | "mp3"}',
    ru: () => 'ожидается {data: <base64>, format: "wav" | "mp3"}',
  }),
  must_be_json_object_string: phraseTexts({
    en: () => 'must be a JSON object in a string',
    ru: () => 'ожидается JSON-объект в строке',
  }),
  must_name_earlier_call: phraseTexts({
    en: () => 'must name a tool call of an earlier assistant message',
    ru: () => 'ожидается id вызова из предыдущего сообщения assistant',
  }),
  tool_call_id_needed: phraseTexts({
    en: () => 'a tool message needs the id of the call it answers',
    ru: () => 'сообщению tool нужен id вызова, на который оно отвечает',
  }),
  thinking_block_shape: phraseTexts({
    en: () => 'expected {type: "thinking", thinking, signature} or {type: "redacted_thinking", data}',
    ru: () => 'ожидается {type: "thinking", thinking, signature} или {type: "redacted_thinking", data}',
  }),
  /** `what`: the thing refused, in the protocols' own English terms (`a "server_tool_use" block`). */
  not_for_this_node: phraseTexts<{ what: string }>({
    en: (p) => `${p.what} cannot be sent to this model's node`,
    ru: (p) => `${p.what} нельзя передать узлу этой модели`,
  }),
  /** `what` as above; `protocol`: the node's wire protocol. */
  not_for_protocol: phraseTexts<{ what: string; protocol: string }>({
    en: (p) => `${p.what} cannot be sent to a ${p.protocol} node`,
    ru: (p) => `${p.what} нельзя передать узлу с протоколом ${p.protocol}`,
  }),

  // The Responses API's input, tools and text format.
  must_be_message_role: phraseTexts({
    en: () => 'must be user, assistant, system or developer',
    ru: () => 'должен быть user, assistant, system или developer',
  }),
  item_type_unsupported: phraseTexts<{ type: string }>({
    en: (p) => `the item type '${p.type}' is not supported`,
    ru: (p) => `тип элемента '${p.type}' не поддерживается`,
  }),
  part_type_unsupported: phraseTexts<{ type: string }>({
    en: (p) => `the part type '${p.type}' is not supported`,
    ru: (p) => `тип части '${p.type}' не поддерживается`,
  }),
  part_type_unsupported_in_assistant: phraseTexts<{ type: string }>({
    en: (p) => `the part type '${p.type}' is not supported in an assistant message`,
    ru: (p) => `тип части '${p.type}' не поддерживается в сообщении assistant`,
  }),
  image_url_required: phraseTexts({
    en: () => 'is required (images by file_id are not supported)',
    ru: () => 'обязателен (изображения по file_id не поддерживаются)',
  }),
  file_data_required: phraseTexts({
    en: () => 'is required (files by URL are not supported)',
    ru: () => 'обязателен (файлы по URL не поддерживаются)',
  }),
  must_be_function_tools: phraseTexts({
    en: () => 'must be an array of function tools',
    ru: () => 'должен быть массивом function-инструментов',
  }),
  must_be_tool_name: phraseTexts({
    en: () => 'must be a non-empty string of at most 128 characters',
    ru: () => 'должен быть непустой строкой не длиннее 128 символов',
  }),
  tool_not_offered: phraseTexts<{ type: string; name: string }>({
    en: (p) => `no ${p.type} tool named '${p.name}' is offered`,
    ru: (p) => `инструмент ${p.type} с именем '${p.name}' не предложен`,
  }),
  hosted_tool_forced: phraseTexts<{ type: string }>({
    en: (p) => `it forces the hosted tool '${p.type}', which the node serving this model cannot run`,
    ru: (p) => `он требует встроенный инструмент '${p.type}', который узел этой модели не выполняет`,
  }),
  server_tool_not_allowed: phraseTexts<{ tool: string }>({
    en: (p) => `it forces the server tool '${p.tool}', which this model does not allow`,
    ru: (p) => `он требует серверный инструмент '${p.tool}', который эта модель не разрешает`,
  }),
  required_for_json_schema: phraseTexts({
    en: () => 'is required for json_schema',
    ru: () => 'обязателен для json_schema',
  }),
  must_be_json_schema: phraseTexts({
    en: () => 'must be a JSON schema object',
    ru: () => 'должен быть объектом JSON-схемы',
  }),
  format_unsupported: phraseTexts<{ type: string }>({
    en: (p) => `the format '${p.type}' is not supported`,
    ru: (p) => `формат '${p.type}' не поддерживается`,
  }),

  // Admin API and console parameters.
  must_be_status: phraseTexts({
    en: () => 'must be ok, error or an HTTP status from 100 to 599',
    ru: () => 'нужно ok, error или HTTP-статус от 100 до 599',
  }),
  must_be_iso_time: phraseTexts({ en: () => 'must be an ISO 8601 time', ru: () => 'нужно время в формате ISO 8601' }),
  must_be_time_or_epoch_ms: phraseTexts({
    en: () => 'must be an ISO 8601 time or unix milliseconds',
    ru: () => 'нужно время в формате ISO 8601 или unix-миллисекунды',
  }),
  must_be_status_class: phraseTexts({
    en: () => 'must be 2xx, 3xx, 4xx, 5xx or an HTTP status from 100 to 599',
    ru: () => 'нужно 2xx, 3xx, 4xx, 5xx или HTTP-статус от 100 до 599',
  }),
  must_be_cursor: phraseTexts({
    en: () => 'must be a next_cursor from an earlier page',
    ru: () => 'нужен next_cursor с предыдущей страницы',
  }),
  must_be_after_from: phraseTexts({ en: () => "must be later than 'from'", ru: () => "должно быть позже 'from'" }),
  must_not_be_zero: phraseTexts({ en: () => 'must not be zero', ru: () => 'не должен быть нулём' }),
  repeats_budget_period: phraseTexts({
    en: () => 'repeats a period: give one budget per period',
    ru: () => 'повторяет период: задайте один бюджет на период',
  }),
  integer_in_range: phraseTexts<{ min: number; max: number }>({
    en: (p) => `must be an integer from ${p.min} to ${p.max}`,
    ru: (p) => `нужно целое от ${p.min} до ${p.max}`,
  }),
  admin_key_required: phraseTexts({ en: () => 'the admin key is required', ru: () => 'нужен ключ администратора' }),
} as const;

/** A phrase of the registry. */
export type PhraseId = keyof typeof PHRASES;
/** The params a phrase takes. */
export type PhraseParams<P extends PhraseId> = (typeof PHRASES)[P] extends Texts<infer Params> ? Params : never;
/** The arguments after a phrase's id (none when it takes no params). */
export type PhraseArgs<P extends PhraseId> = ArgsOf<PhraseParams<P>>;

/** A phrase with its params, to be rendered in the caller's language (a value of a reason's params). */
export interface Phrase {
  readonly phrase: PhraseId;
  readonly params: PhraseInput;
}

/** The phrase `id` with its params: `phrase('nested_too_deep', { limit: 64 })`. */
export function phrase<P extends PhraseId>(id: P, ...args: PhraseArgs<P>): Phrase {
  return { phrase: id, params: (args[0] ?? {}) as PhraseInput };
}

type ReasonInput = Readonly<Record<string, ReasonValue | Phrase | undefined>> & { readonly param?: never };
/** What a reason's templates get: its params with phrases rendered, and the error's `param` as shown. */
type Shown<P> = { readonly [K in keyof P]: P[K] extends Phrase ? string : P[K] } & { readonly param: string };
/** A reason's texts; `takes` only records, for the type checker, the params a call site passes. */
interface ReasonTexts<P> extends Texts<Shown<P>> {
  readonly takes?: P;
}

function reasonTexts<P extends ReasonInput = NoParams>(texts: Texts<Shown<P>>): ReasonTexts<P> {
  return texts;
}

const invalidParameterRu = (p: Shown<{ what: Phrase }>) => `Некорректный параметр '${p.param}': ${p.what}.`;

/** Whole sentences: the reason a code's message gives (see codes.ts). */
export const REASONS = {
  // A parameter and what is wrong with it, e.g. "Invalid parameter 'tools[0].name': must be a non-empty string".
  invalid_parameter: reasonTexts<{ what: Phrase }>({
    en: (p) => `Invalid parameter '${p.param}': ${p.what}.`,
    ru: invalidParameterRu,
  }),
  /** The same with "it" before the phrase in English: "Invalid parameter 'model': it is required." */
  invalid_parameter_value: reasonTexts<{ what: Phrase }>({
    en: (p) => `Invalid parameter '${p.param}': it ${p.what}.`,
    ru: invalidParameterRu,
  }),
  unsupported_parameter: reasonTexts({
    en: (p) => `Unsupported parameter '${p.param}': this gateway does not serve it.`,
    ru: (p) => `Неподдерживаемый параметр '${p.param}': шлюз его не обслуживает.`,
  }),

  // The request body as a whole.
  body_not_object: reasonTexts({
    en: () => 'The request body must be a JSON object.',
    ru: () => 'Тело запроса должно быть JSON-объектом.',
  }),
  json_too_deep: reasonTexts<{ limit: number }>({
    en: (p) => `The request body ${PHRASES.nested_too_deep.en(p)}.`,
    ru: (p) => `В теле запроса ${PHRASES.nested_too_deep.ru(p)}.`,
  }),
  json_forbidden_key: reasonTexts({
    en: () => 'The request body contains a forbidden key ("__proto__" or "constructor.prototype").',
    ru: () => 'Тело запроса содержит запрещённый ключ ("__proto__" или "constructor.prototype").',
  }),
  /** `detail`: the JSON parser's own (English) words. */
  json_malformed: reasonTexts<{ detail: string }>({
    en: (p) => `The request body is not valid JSON: ${p.detail}.`,
    ru: (p) => `Тело запроса не является корректным JSON: ${p.detail}.`,
  }),
  json_number_too_large: reasonTexts({
    en: () => 'The request body is a number too large to be finite.',
    ru: () => 'Тело запроса — число, слишком большое, чтобы быть конечным.',
  }),
  http_request_malformed: reasonTexts({
    en: () => 'The HTTP request is malformed.',
    ru: () => 'HTTP-запрос составлен некорректно.',
  }),
  too_many_messages: reasonTexts<{ count: number; limit: number }>({
    en: (p) => `Too many messages: ${p.count}; at most ${p.limit} are accepted.`,
    ru: (p) => `Слишком много сообщений: ${p.count}; допускается не более ${p.limit}.`,
  }),
  too_many_input_items: reasonTexts<{ count: number; limit: number }>({
    en: (p) => `Too many input items: ${p.count}; at most ${p.limit} are accepted.`,
    ru: (p) => `Слишком много элементов input: ${p.count}; допускается не более ${p.limit}.`,
  }),
  reasoning_effort_conflict: reasonTexts<{ top_level: string; nested: string }>({
    en: (p) =>
      `Conflicting parameters: reasoning_effort is "${p.top_level}" but reasoning.effort is "${p.nested}"; send one of them, or the same value in both.`,
    ru: (p) =>
      `Противоречивые параметры: reasoning_effort = "${p.top_level}", а reasoning.effort = "${p.nested}"; передайте один из них или одинаковые значения.`,
  }),

  // The reservation (docs/security-and-limits.md, "Input the gateway cannot size").
  input_size_unbounded: reasonTexts<{ model: string }>({
    en: (p) =>
      `The request carries input whose size the gateway cannot know (an item_reference it does not store, or a file by id), and model "${p.model}" has no bound for it (context_length or unresolved_input_tokens), so its cost cannot be reserved; send the content itself.`,
    ru: (p) =>
      `Запрос содержит вход, размер которого шлюзу неизвестен (item_reference, которого он не хранит, или файл по id), а у модели "${p.model}" для него нет границы (context_length или unresolved_input_tokens), поэтому его стоимость нельзя зарезервировать; передайте само содержимое.`,
  }),

  // Stored responses (Responses API).
  conversation_too_long: reasonTexts<{ limit: number }>({
    en: (p) =>
      `The conversation reaches back through more than ${p.limit} stored responses; start a new one, or send its input with store: false.`,
    ru: (p) =>
      `Диалог опирается более чем на ${p.limit} сохранённых ответов; начните новый или передайте его вход целиком со store: false.`,
  }),
  conversation_too_large: reasonTexts<{ limit: number }>({
    en: (p) =>
      `The stored conversation this continues is larger than ${p.limit} bytes; start a new one, or send its input with store: false.`,
    ru: (p) =>
      `Сохранённый диалог, который продолжает запрос, больше ${p.limit} байт; начните новый или передайте его вход целиком со store: false.`,
  }),
  stored_response_not_stream: reasonTexts({
    en: () => 'Stored responses are not kept as event streams: retrieve them without stream.',
    ru: () => 'Сохранённые ответы не хранятся как потоки событий: запрашивайте их без stream.',
  }),
  input_items_limit: reasonTexts({
    en: () => 'limit must be an integer from 1 to 100.',
    ru: () => 'limit должен быть целым числом от 1 до 100.',
  }),
  input_items_order: reasonTexts({
    en: () => 'order must be "asc" or "desc".',
    ru: () => 'order должен быть "asc" или "desc".',
  }),
  input_item_not_found: reasonTexts<{ response: string; item: string }>({
    en: (p) => `No input item "${p.item}" in response ${p.response}.`,
    ru: (p) => `Во входе ответа ${p.response} нет элемента "${p.item}".`,
  }),

  // Admin API: what a body names must exist, or must not yet.
  node_exists: reasonTexts<{ id: string }>({
    en: (p) => `A node "${p.id}" already exists.`,
    ru: (p) => `Узел "${p.id}" уже существует.`,
  }),
  unknown_model: reasonTexts<{ model: string }>({
    en: (p) => `Unknown model "${p.model}".`,
    ru: (p) => `Неизвестная модель "${p.model}".`,
  }),
  unknown_account: reasonTexts<{ account: string }>({
    en: (p) => `Unknown account "${p.account}".`,
    ru: (p) => `Неизвестный аккаунт "${p.account}".`,
  }),
  /** A top-up or adjustment would take an account's balance beyond the largest it may hold. */
  balance_over_max: reasonTexts<{ max: number }>({
    en: (p) => `The balance would exceed ${p.max} USD, the most an account may hold.`,
    ru: (p) => `Баланс превысил бы ${p.max} USD — больше аккаунт хранить не может.`,
  }),

  // conflict (its message begins "Conflict: ").
  account_exists: reasonTexts<{ id: string }>({
    en: (p) => `an account "${p.id}" already exists.`,
    ru: (p) => `аккаунт "${p.id}" уже существует.`,
  }),
  key_prefix_ambiguous: reasonTexts<{ prefix: string; count: number }>({
    en: (p) => `the prefix "${p.prefix}" matches ${p.count} keys; use the key id.`,
    ru: (p) => `префикс "${p.prefix}" подходит к ${p.count} ключам; укажите id ключа.`,
  }),
  /** `action`: block, unblock, revoke or delete. */
  key_state_forbids: reasonTexts<{ status: string; action: string }>({
    en: (p) => `a ${p.status} key cannot be ${p.action}ed.`,
    ru: (p) => `ключ в состоянии ${p.status} нельзя изменить действием ${p.action}.`,
  }),
  key_rotation_forbidden: reasonTexts<{ status: string }>({
    en: (p) => `a ${p.status} key cannot be rotated.`,
    ru: (p) => `ключ в состоянии ${p.status} нельзя заменить.`,
  }),
  config_key_rotation: reasonTexts({
    en: () =>
      'this key is declared in the configuration file: rotate it there (add the new key, then remove the old line).',
    ru: () =>
      'этот ключ объявлен в файле конфигурации: меняйте его там (добавьте новый ключ, затем удалите старую строку).',
  }),

  // access_denied (its message begins "Access denied: ").
  admin_api_disabled: reasonTexts({
    en: () => 'the admin API is disabled (no admin_key in the configuration).',
    ru: () => 'API администратора отключён (в конфигурации нет admin_key).',
  }),
  console_cross_site: reasonTexts({
    en: () => 'a console write must come from the console page itself (cross-site request refused).',
    ru: () => 'изменения в консоли принимаются только с её собственной страницы (межсайтовый запрос отклонён).',
  }),
  console_token_missing: reasonTexts<{ header: string }>({
    en: (p) => `a console write must carry the session's ${p.header} header.`,
    ru: (p) => `изменение в консоли должно нести заголовок сессии ${p.header}.`,
  }),
  model_not_allowed: reasonTexts<{ model: string }>({
    en: (p) => `this key may not use the model "${p.model}".`,
    ru: (p) => `этому ключу не разрешена модель "${p.model}".`,
  }),
  streaming_not_allowed: reasonTexts({
    en: () => 'streaming is not enabled for this account or key.',
    ru: () => 'потоковая передача не разрешена для этого аккаунта или ключа.',
  }),
  effort_above_ceiling: reasonTexts<{ effort: string; ceiling: string }>({
    en: (p) => `reasoning effort "${p.effort}" is above the allowed "${p.ceiling}".`,
    ru: (p) => `уровень рассуждений "${p.effort}" выше разрешённого "${p.ceiling}".`,
  }),
} as const;

/** A reason of the registry. */
export type ReasonId = keyof typeof REASONS;
/** The params a reason takes (besides `param`, which is the error's). */
export type ReasonParams<R extends ReasonId> = NonNullable<(typeof REASONS)[R]['takes']>;
/** The arguments after a reason's id (none when it takes no params). */
export type ReasonArgs<R extends ReasonId> = ArgsOf<ReasonParams<R>>;

/** A reason with its params: what a GatewayError carries to render its message in any language. */
export interface Reason {
  readonly id: ReasonId;
  readonly params: ReasonInput;
}

/** The reason `id` with its params: `because('model_not_allowed', { model: 'gpt-4o' })`. */
export function because<R extends ReasonId>(id: R, ...args: ReasonArgs<R>): Reason {
  return { id, params: (args[0] ?? {}) as ReasonInput };
}

/** A phrase in `language`. */
export function renderPhrase(value: Phrase, language: Language): string {
  const texts = PHRASES[value.phrase] as unknown as Texts<PhraseInput>;
  return texts[language](value.params);
}

/** A reason in `language`, about the parameter `param` (as the error shows it). */
export function renderReason(reason: Reason, language: Language, param: string | null): string {
  const shown: Record<string, ReasonValue | undefined> = {};
  for (const [name, value] of Object.entries(reason.params)) {
    shown[name] = typeof value === 'object' ? renderPhrase(value, language) : value;
  }
  shown.param = param ?? '';
  const texts = REASONS[reason.id] as unknown as Texts<typeof shown>;
  return texts[language](shown);
}
