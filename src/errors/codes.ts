/**
 * The single registry of gateway error codes (spec 7.2, PRODUCT.md decisions 2, 3, 11).
 * Each code fixes its HTTP status, its OpenAI-style `type`, whether a caller may retry
 * it, and its message in every language we answer in. Call sites create errors by code;
 * the codes whose message gives a reason (validation_failed, access_denied, conflict) take
 * one from the registry of reasons (reasons.ts), rendered in the same language.
 */

/** Languages an error message can be rendered in (PRODUCT.md decision 10). */
export type Language = 'en' | 'ru';

/** Values a message template may interpolate. */
export type MessageParams = Readonly<Record<string, string | number | undefined>>;

/** A message in one language; `reason` is the error's reason (reasons.ts) rendered in that language, if it has one. */
type MessageTemplate = (params: MessageParams, reason: string | undefined) => string;

/** One entry of the code registry. */
export interface ErrorCodeDefinition {
  readonly status: number;
  readonly type: ErrorType;
  readonly retryable: boolean;
  readonly message: Readonly<Record<Language, MessageTemplate>>;
  /** The code clients see when it is not this one (internal codes that share a public meaning). */
  readonly wireCode?: string;
}

/** The spec's error categories (spec 7.1). */
export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'billing_error'
  | 'permission_error'
  | 'rate_limit_error'
  | 'service_unavailable'
  | 'internal_error';

const text = (value: unknown): string => (value === undefined ? '' : String(value));

export const ERROR_CODES = {
  validation_failed: {
    status: 400,
    type: 'invalid_request_error',
    retryable: false,
    message: {
      en: (_, reason) => reason || 'The request is invalid.',
      ru: (_, reason) => reason || 'Некорректный запрос.',
    },
  },
  authentication_required: {
    status: 401,
    type: 'authentication_error',
    retryable: false,
    message: {
      en: () => 'Missing API key: send the header "Authorization: Bearer <API_KEY>".',
      ru: () => 'Не передан API-ключ: добавьте заголовок "Authorization: Bearer <API_KEY>".',
    },
  },
  /** A console call without a live session (none, expired or signed out). */
  console_session_required: {
    status: 401,
    type: 'authentication_error',
    retryable: false,
    message: {
      en: () => 'Sign in to the console: there is no session, or it has expired.',
      ru: () => 'Войдите в консоль: сессии нет или её срок истёк.',
    },
  },
  invalid_api_key: {
    status: 401,
    type: 'authentication_error',
    retryable: false,
    message: {
      en: () => 'The API key is invalid, blocked, revoked or deleted.',
      ru: () => 'API-ключ недействителен, заблокирован, отозван или удалён.',
    },
  },
  /** A key past its `expires_at`. Not counted as a failed attempt (it is no guess). On the wire it is invalid_api_key. */
  api_key_expired: {
    status: 401,
    type: 'authentication_error',
    retryable: false,
    wireCode: 'invalid_api_key',
    message: {
      en: (p) => `The API key expired at ${text(p.at)}.`,
      ru: (p) => `Срок действия API-ключа истёк ${text(p.at)}.`,
    },
  },
  /** A secret a rotation replaced, past its grace. Not counted as a failed attempt. On the wire it is invalid_api_key. */
  api_key_replaced: {
    status: 401,
    type: 'authentication_error',
    retryable: false,
    wireCode: 'invalid_api_key',
    message: {
      en: (p) =>
        `This API key was rotated: its old secret stopped working at ${text(p.at)}. Use the new secret of the key.`,
      ru: (p) =>
        `Этот API-ключ был заменён: его старый секрет перестал действовать ${text(p.at)}. Используйте новый секрет ключа.`,
    },
  },
  /** /admin/v1, /metrics on the main listener: no admin key sent. On the wire it is the spec's authentication_required. */
  admin_key_missing: {
    status: 401,
    type: 'authentication_error',
    retryable: false,
    wireCode: 'authentication_required',
    message: {
      en: () =>
        'Missing admin key: send the header "Authorization: Bearer <ADMIN_KEY>" with the admin_key of the gateway\'s configuration (an API key does not open this endpoint).',
      ru: () =>
        'Не передан ключ администратора: добавьте заголовок "Authorization: Bearer <ADMIN_KEY>" с admin_key из конфигурации шлюза (API-ключ к этому адресу не подходит).',
    },
  },
  /** /admin/v1, /metrics, the console's sign-in: a key that is not the admin key. On the wire it is the spec's invalid_api_key. */
  invalid_admin_key: {
    status: 401,
    type: 'authentication_error',
    retryable: false,
    wireCode: 'invalid_api_key',
    message: {
      en: () =>
        "The admin key is wrong: this endpoint takes the admin_key of the gateway's configuration, not an API key.",
      ru: () => 'Неверный ключ администратора: этот адрес принимает admin_key из конфигурации шлюза, а не API-ключ.',
    },
  },
  insufficient_balance: {
    status: 402,
    type: 'billing_error',
    retryable: false,
    message: {
      en: (p) =>
        `The account balance is too low for this request: it would reserve up to ${text(p.reserve_usd)} USD (a prompt of ${text(p.prompt_tokens)} tokens and an output cap of ${text(p.output_tokens)} tokens), and ${text(p.remaining_usd)} USD remains after requests in flight.`,
      ru: (p) =>
        `Недостаточно средств на балансе для этого запроса: он зарезервировал бы до ${text(p.reserve_usd)} USD (запрос ${text(p.prompt_tokens)} токенов и лимит ответа ${text(p.output_tokens)} токенов), а с учётом выполняющихся запросов остаётся ${text(p.remaining_usd)} USD.`,
    },
  },
  api_key_limit_exceeded: {
    status: 402,
    type: 'billing_error',
    retryable: false,
    message: {
      en: (p) =>
        `The spend limit of this API key (${text(p.limit_usd)} USD) does not cover this request: it would reserve up to ${text(p.reserve_usd)} USD (a prompt of ${text(p.prompt_tokens)} tokens and an output cap of ${text(p.output_tokens)} tokens), and ${text(p.remaining_usd)} USD of the limit remains after requests in flight.`,
      ru: (p) =>
        `Лимит расходов этого API-ключа (${text(p.limit_usd)} USD) не покрывает этот запрос: он зарезервировал бы до ${text(p.reserve_usd)} USD (запрос ${text(p.prompt_tokens)} токенов и лимит ответа ${text(p.output_tokens)} токенов), а с учётом выполняющихся запросов от лимита остаётся ${text(p.remaining_usd)} USD.`,
    },
  },
  budget_exceeded: {
    status: 402,
    type: 'billing_error',
    retryable: false,
    message: {
      en: (p) =>
        `The ${text(p.period)} budget of this ${p.owner === 'end_user' ? `API key for the end user "${text(p.end_user)}"` : p.owner === 'account' ? 'account' : 'API key'} does not cover this request: the window that started ${text(p.window_start)} has a limit of ${text(p.limit_usd)} USD, spent ${text(p.spent_usd)} USD and has ${text(p.reserved_usd)} USD reserved by requests in flight, so ${text(p.remaining_usd)} USD remains; this request would reserve up to ${text(p.reserve_usd)} USD (a prompt of ${text(p.prompt_tokens)} tokens and an output cap of ${text(p.output_tokens)} tokens). The window resets at ${text(p.resets_at)}.`,
      ru: (p) =>
        `Бюджет (${text(p.period)}) ${p.owner === 'end_user' ? `этого API-ключа для конечного пользователя "${text(p.end_user)}"` : p.owner === 'account' ? 'этого аккаунта' : 'этого API-ключа'} не покрывает этот запрос: у окна, начавшегося ${text(p.window_start)}, лимит ${text(p.limit_usd)} USD, потрачено ${text(p.spent_usd)} USD и зарезервировано выполняющимися запросами ${text(p.reserved_usd)} USD, остаётся ${text(p.remaining_usd)} USD; этот запрос зарезервировал бы до ${text(p.reserve_usd)} USD (запрос ${text(p.prompt_tokens)} токенов и лимит ответа ${text(p.output_tokens)} токенов). Окно обнуляется в ${text(p.resets_at)}.`,
    },
  },
  access_denied: {
    status: 403,
    type: 'permission_error',
    retryable: false,
    message: {
      en: (_, reason) => `Access denied: ${reason || 'the account policy does not allow this request.'}`,
      ru: (_, reason) => `Доступ запрещён: ${reason || 'политика аккаунта не разрешает этот запрос.'}`,
    },
  },
  model_unavailable: {
    status: 404,
    type: 'invalid_request_error',
    retryable: false,
    message: {
      en: (p) =>
        p.model !== undefined
          ? `The model "${text(p.model)}" does not exist or is disabled. GET /v1/models lists the available models.`
          : `No endpoint ${text(p.method)} ${text(p.path)}.`,
      ru: (p) =>
        p.model !== undefined
          ? `Модель "${text(p.model)}" не существует или отключена. Список доступных моделей: GET /v1/models.`
          : `Нет такого адреса: ${text(p.method)} ${text(p.path)}.`,
    },
  },
  /** No route takes the method and path; on the wire it is the spec's 404 model_unavailable. */
  no_route: {
    status: 404,
    type: 'invalid_request_error',
    retryable: false,
    wireCode: 'model_unavailable',
    message: {
      en: (p) =>
        `No endpoint ${text(p.method)} ${text(p.path)}. The endpoints are POST /v1/chat/completions, POST /v1/messages, POST /v1/messages/count_tokens, POST /v1/responses, POST /v1/responses/input_tokens, GET and DELETE /v1/responses/{id}, GET /v1/responses/{id}/input_items, GET /v1/models and GET /v1/models/{id}.`,
      ru: (p) =>
        `Нет такого адреса: ${text(p.method)} ${text(p.path)}. Адреса API: POST /v1/chat/completions, POST /v1/messages, POST /v1/messages/count_tokens, POST /v1/responses, POST /v1/responses/input_tokens, GET и DELETE /v1/responses/{id}, GET /v1/responses/{id}/input_items, GET /v1/models и GET /v1/models/{id}.`,
    },
  },
  /** The client closed the connection: nothing more is sent, the request is only logged and booked (status 499 in the ledger). */
  client_gone: {
    status: 499,
    type: 'invalid_request_error',
    retryable: false,
    message: {
      en: () => 'The client closed the connection.',
      ru: () => 'Клиент закрыл соединение.',
    },
  },
  not_found: {
    status: 404,
    type: 'invalid_request_error',
    retryable: false,
    message: {
      en: (p) => `No ${text(p.kind)} "${text(p.id)}".`,
      ru: (p) => `Не найдено: ${text(p.kind)} "${text(p.id)}".`,
    },
  },
  /** GET/DELETE /v1/responses/{id}: no such stored response for this account (another account's is not there either). */
  response_not_found: {
    status: 404,
    type: 'invalid_request_error',
    retryable: false,
    message: {
      en: (p) => `Response with id '${text(p.id)}' not found.`,
      ru: (p) => `Ответ с идентификатором '${text(p.id)}' не найден.`,
    },
  },
  /** `previous_response_id` names no stored response of this account (param previous_response_id). */
  previous_response_not_found: {
    status: 400,
    type: 'invalid_request_error',
    retryable: false,
    message: {
      en: (p) =>
        `Previous response with id '${text(p.id)}' not found. Responses are kept only when \`store\` is true, for a limited time, and only for the account that made them.`,
      ru: (p) =>
        `Предыдущий ответ с идентификатором '${text(p.id)}' не найден. Ответы хранятся, только когда \`store\` равен true, ограниченное время и только для аккаунта, который их создал.`,
    },
  },
  /**
   * POST /v1/responses asking to store (param store) while the account's stored responses are
   * at `responses.max_stored_responses_per_account` or `max_stored_bytes_per_account`:
   * refused before any node is called.
   */
  stored_responses_full: {
    status: 429,
    type: 'rate_limit_error',
    retryable: false,
    message: {
      en: (p) =>
        `This account's stored responses are full (at most ${text(p.max_count)} responses and ${text(p.max_bytes)} bytes are kept per account). Delete some (DELETE /v1/responses/{id}), let them expire, or send store: false.`,
      ru: (p) =>
        `Хранилище ответов этого аккаунта заполнено (на аккаунт хранится не более ${text(p.max_count)} ответов и ${text(p.max_bytes)} байт). Удалите часть (DELETE /v1/responses/{id}), дождитесь истечения их срока или передайте store: false.`,
    },
  },
  conflict: {
    status: 409,
    type: 'invalid_request_error',
    retryable: false,
    message: {
      en: (_, reason) => `Conflict: ${text(reason)}`,
      ru: (_, reason) => `Конфликт: ${text(reason)}`,
    },
  },
  method_not_allowed: {
    status: 405,
    type: 'invalid_request_error',
    retryable: false,
    message: {
      en: (p) => `Method ${text(p.method)} is not allowed on ${text(p.path)}; use ${text(p.allow)}.`,
      ru: (p) => `Метод ${text(p.method)} не поддерживается для ${text(p.path)}; используйте ${text(p.allow)}.`,
    },
  },
  payload_too_large: {
    status: 413,
    type: 'invalid_request_error',
    retryable: false,
    message: {
      en: (p) => `The request body is larger than the limit of ${text(p.limit)} bytes.`,
      ru: (p) => `Тело запроса больше допустимых ${text(p.limit)} байт.`,
    },
  },
  request_timeout: {
    status: 408,
    type: 'invalid_request_error',
    retryable: true,
    message: {
      en: (p) => `The request was not received in time (${text(p.what) || 'body'}: ${text(p.timeout_ms)} ms).`,
      ru: (p) => `Запрос не был получен вовремя (${text(p.what) || 'тело'}: ${text(p.timeout_ms)} мс).`,
    },
  },
  headers_too_large: {
    status: 431,
    type: 'invalid_request_error',
    retryable: false,
    message: {
      en: () => 'The request headers are too large.',
      ru: () => 'Заголовки запроса слишком велики.',
    },
  },
  rate_limited: {
    status: 429,
    type: 'rate_limit_error',
    retryable: true,
    message: {
      en: (p) => `Rate limit exceeded; retry in ${text(p.retry_after)} s.`,
      ru: (p) => `Превышен лимит запросов; повторите через ${text(p.retry_after)} с.`,
    },
  },
  internal_error: {
    status: 500,
    type: 'internal_error',
    retryable: true,
    message: {
      en: () => 'The gateway failed unexpectedly. Quote the request id when you report it.',
      ru: () => 'Внутренняя ошибка шлюза. Укажите идентификатор запроса, сообщая о ней.',
    },
  },
  bad_gateway: {
    status: 502,
    type: 'service_unavailable',
    retryable: true,
    message: {
      en: (p) => `The model node failed: ${text(p.reason) || 'invalid response'}.`,
      ru: (p) => `Сбой узла модели: ${text(p.reason) || 'некорректный ответ'}.`,
    },
  },
  router_unavailable: {
    status: 503,
    type: 'service_unavailable',
    retryable: true,
    message: {
      en: (p) =>
        `No node is available for the model "${text(p.model)}"${p.reason ? ` (${text(p.reason)})` : ''}; retry later.`,
      ru: (p) =>
        `Нет доступного узла для модели "${text(p.model)}"${p.reason ? ` (${text(p.reason)})` : ''}; повторите позже.`,
    },
  },
  usage_backlog_full: {
    status: 503,
    type: 'service_unavailable',
    retryable: true,
    message: {
      en: () =>
        'The gateway cannot record usage right now (its store is unreachable and its backlog is full); retry later.',
      ru: () => 'Шлюз сейчас не может учесть расход (хранилище недоступно, очередь записи заполнена); повторите позже.',
    },
  },
  shutting_down: {
    status: 503,
    type: 'service_unavailable',
    retryable: true,
    message: {
      en: () => 'The gateway is shutting down; retry the request.',
      ru: () => 'Шлюз останавливается; повторите запрос.',
    },
  },
  server_busy: {
    status: 503,
    type: 'service_unavailable',
    retryable: true,
    message: {
      en: (p) => `The gateway is receiving too many request bodies at once; retry in ${text(p.retry_after)} s.`,
      ru: (p) =>
        `Шлюз сейчас принимает слишком много тел запросов одновременно; повторите через ${text(p.retry_after)} с.`,
    },
  },
  upstream_timeout: {
    status: 504,
    type: 'service_unavailable',
    retryable: true,
    message: {
      en: (p) => `The request took longer than the deadline of ${text(p.timeout_ms)} ms.`,
      ru: (p) => `Запрос не уложился в отведённые ${text(p.timeout_ms)} мс.`,
    },
  },
  reply_too_large: {
    status: 502,
    type: 'service_unavailable',
    retryable: false,
    message: {
      en: (p) =>
        `The model's reply is larger than the gateway relays (${text(p.limit)} bytes); ask for less (fewer choices or log probabilities, a lower max_tokens) or stream it.`,
      ru: (p) =>
        `Ответ модели больше, чем передаёт шлюз (${text(p.limit)} байт); запросите меньше (меньше вариантов или вероятностей, меньший max_tokens) или получайте его потоком.`,
    },
  },
} as const satisfies Record<string, ErrorCodeDefinition>;

/** A code known to the registry. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** Whether a string is a code known to the registry. */
export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_CODES, code);
}

/** The codes whose message gives a reason of the registry of reasons (reasons.ts); no other takes one. */
export type ReasonedCode = Extract<ErrorCode, 'validation_failed' | 'access_denied' | 'conflict'>;

/** What goes on the wire in `error.code` for a code (itself, unless the registry says otherwise). */
export function wireCodeOf(code: ErrorCode): string {
  const definition: ErrorCodeDefinition = ERROR_CODES[code];
  return definition.wireCode ?? code;
}
