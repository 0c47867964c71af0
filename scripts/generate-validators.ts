// Writes src/validation/generated/ (a .js and a .d.ts per module; the build copies the
// .js files to dist/validation/generated/): the JSON-schema validators of the configuration file,
// the chat request and the admin bodies as plain code (Ajv "standalone" output), so the
// gateway never loads TypeBox or Ajv's compiler and never compiles a schema at start.
// Run after changing a schema:   npm run generate:validators
// src/validation/generated-validators.test.ts fails while the files are out of date.
import { writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Ajv, type Options } from 'ajv';
import standalone from 'ajv/dist/standalone/index.js';
import type { TSchema } from '@sinclair/typebox';
import {
  AdjustSchema,
  CreateAccountSchema,
  CreateKeySchema,
  RotateKeySchema,
  TopUpSchema,
  UpdateAccountSchema,
  UpdateKeySchema,
} from '../src/admin/admin-schemas.js';
import { ConfigFileSchema } from '../src/config/config-schema.js';
import { AddNodeSchema } from '../src/http/admin/add-node-schema.js';
import { ChatRequestSchema } from '../src/protocol/openai/chat-request-schema.js';
import { CreateResponseSchema } from '../src/front-doors/responses/create-response-schema.js';
import {
  CountTokensRequestSchema,
  MessagesRequestSchema,
} from '../src/front-doors/messages/messages-request-schema.js';
import { ChatUsageSchema } from '../src/providers/chat-usage-schema.js';
import { ChatReplySchema } from '../src/providers/openai/chat-reply-schema.js';
import { ResponseEventSchema, ResponseSchema } from '../src/providers/openai/response-schema.js';
import { GenerateContentResponseSchema } from '../src/providers/gemini/response-schema.js';
import {
  AnthropicMessageSchema,
  MessageDeltaSchema,
  MessageStartSchema,
} from '../src/providers/anthropic/message-schemas.js';

/** Where the generated files live, relative to the repository root. */
export const GENERATED_DIRECTORY = 'src/validation/generated';

// Request bodies: first error only, no coercion. `verbose` puts the schema into each error,
// which describeSchemaError reads to list a union's literals. `strictNumbers`: a number is
// finite (JSON.parse turns 1e400 into Infinity, which Ajv's number and integer checks
// accept without it, since `strict: false` turns it off too).
const REQUEST_OPTIONS: Options = {
  allErrors: false,
  coerceTypes: false,
  useDefaults: false,
  strict: false,
  strictNumbers: true,
  verbose: true,
};
// Interpolated values are strings: `port: ${PORT}` must still become a number, so the
// config validator (unlike the request validators) coerces scalars to the schema's type.
const CONFIG_OPTIONS: Options = { coerceTypes: true, strict: false, verbose: true };
// Node replies and events, checked loosely (src/providers/loose-check.ts): a yes or no, no
// error text, so not verbose. Numbers finite, as TypeBox's checks had them.
const NODE_REPLY_OPTIONS: Options = {
  allErrors: false,
  coerceTypes: false,
  useDefaults: false,
  strict: false,
  strictNumbers: true,
};

interface Export {
  /** Name of the exported `ValidateFunction<type>`. */
  readonly name: string;
  readonly schema: TSchema;
  /** The TypeScript type the validator narrows to. */
  readonly type: string;
}

interface GeneratedModule {
  readonly file: string;
  readonly options: Options;
  /** `import type` lines the exported types need, relative to the generated file. */
  readonly typeImports: readonly string[];
  readonly exports: readonly Export[];
}

const MODULES: readonly GeneratedModule[] = [
  {
    file: 'validate-config-file.js',
    options: CONFIG_OPTIONS,
    typeImports: ["import type { ConfigFile } from '../../config/config-schema.js';"],
    exports: [{ name: 'validateConfigFile', schema: ConfigFileSchema, type: 'ConfigFile' }],
  },
  {
    file: 'validate-chat-request-shape.js',
    options: REQUEST_OPTIONS,
    typeImports: ["import type { ChatRequest } from '../../protocol/openai/chat-request-schema.js';"],
    exports: [{ name: 'validateChatRequestShape', schema: ChatRequestSchema, type: 'ChatRequest' }],
  },
  {
    file: 'validate-create-response-shape.js',
    options: REQUEST_OPTIONS,
    typeImports: [
      "import type { CreateResponseRequest } from '../../front-doors/responses/create-response-schema.js';",
    ],
    exports: [{ name: 'validateCreateResponseShape', schema: CreateResponseSchema, type: 'CreateResponseRequest' }],
  },
  {
    file: 'validate-messages-request.js',
    options: REQUEST_OPTIONS,
    typeImports: [
      "import type { CountTokensRequest, MessagesRequest } from '../../front-doors/messages/messages-request-schema.js';",
    ],
    exports: [
      { name: 'validateMessagesRequestShape', schema: MessagesRequestSchema, type: 'MessagesRequest' },
      { name: 'validateCountTokensRequestShape', schema: CountTokensRequestSchema, type: 'CountTokensRequest' },
    ],
  },
  {
    file: 'validate-admin-bodies.js',
    options: REQUEST_OPTIONS,
    typeImports: [
      "import type { AdjustBody, CreateAccountBody, CreateKeyBody, RotateKeyBody, TopUpBody, UpdateAccountBody, UpdateKeyBody } from '../../admin/admin-schemas.js';",
    ],
    exports: [
      { name: 'validateCreateAccount', schema: CreateAccountSchema, type: 'CreateAccountBody' },
      { name: 'validateUpdateAccount', schema: UpdateAccountSchema, type: 'UpdateAccountBody' },
      { name: 'validateTopUp', schema: TopUpSchema, type: 'TopUpBody' },
      { name: 'validateAdjust', schema: AdjustSchema, type: 'AdjustBody' },
      { name: 'validateCreateKey', schema: CreateKeySchema, type: 'CreateKeyBody' },
      { name: 'validateUpdateKey', schema: UpdateKeySchema, type: 'UpdateKeyBody' },
      { name: 'validateRotateKey', schema: RotateKeySchema, type: 'RotateKeyBody' },
    ],
  },
  {
    file: 'validate-node-replies.js',
    options: NODE_REPLY_OPTIONS,
    typeImports: [
      "import type { Loose } from '../../providers/loose-check.js';",
      "import type { ChatUsageSchema } from '../../providers/chat-usage-schema.js';",
      "import type { ChatReplySchema } from '../../providers/openai/chat-reply-schema.js';",
      "import type { ResponseEventSchema, ResponseSchema } from '../../providers/openai/response-schema.js';",
      "import type { GenerateContentResponseSchema } from '../../providers/gemini/response-schema.js';",
      "import type { AnthropicMessageSchema, MessageDeltaSchema, MessageStartSchema } from '../../providers/anthropic/message-schemas.js';",
    ],
    exports: [
      { name: 'isChatUsage', schema: ChatUsageSchema, type: 'Loose<typeof ChatUsageSchema>' },
      { name: 'isChatReply', schema: ChatReplySchema, type: 'Loose<typeof ChatReplySchema>' },
      { name: 'isNodeResponse', schema: ResponseSchema, type: 'Loose<typeof ResponseSchema>' },
      { name: 'isResponseEvent', schema: ResponseEventSchema, type: 'Loose<typeof ResponseEventSchema>' },
      {
        name: 'isGenerateContentResponse',
        schema: GenerateContentResponseSchema,
        type: 'Loose<typeof GenerateContentResponseSchema>',
      },
      { name: 'isAnthropicMessage', schema: AnthropicMessageSchema, type: 'Loose<typeof AnthropicMessageSchema>' },
      { name: 'isMessageStart', schema: MessageStartSchema, type: 'Loose<typeof MessageStartSchema>' },
      { name: 'isMessageDelta', schema: MessageDeltaSchema, type: 'Loose<typeof MessageDeltaSchema>' },
    ],
  },
  {
    file: 'validate-add-node.js',
    options: REQUEST_OPTIONS,
    typeImports: ["import type { AddNodeBody } from '../../http/admin/add-node-schema.js';"],
    exports: [{ name: 'validateAddNode', schema: AddNodeSchema, type: 'AddNodeBody' }],
  },
];

const HEADER = `// GENERATED by scripts/generate-validators.ts from the TypeBox schemas: do not edit.
// Regenerate with \`npm run generate:validators\` after changing a schema.
`;

// A CommonJS module: its default export is module.exports, which carries `default` too.
const standaloneCode = standalone.default;

// Ajv's ESM output still reaches its runtime helpers with require(); the gateway is ESM.
const RUNTIME_REQUIRE = /const (\w+) = require\("(ajv\/dist\/runtime\/[\w-]+)"\)\.default;/g;

/**
 * The validator code (plain JavaScript, copied to dist as it is: compiled by tsc it grew
 * 4.7 times in pretty-printing, and V8 keeps a module's source in the heap) and its types.
 */
function generate(module: GeneratedModule): { code: string; types: string } {
  const ajv = new Ajv({ ...module.options, code: { source: true, esm: true, lines: true } });
  const ids: Record<string, string> = {};
  for (const entry of module.exports) {
    ajv.addSchema(entry.schema, entry.name);
    ids[entry.name] = entry.name;
  }
  const imports: string[] = [];
  const code = standaloneCode(ajv, ids)
    .replace(/^"use strict";/, '')
    .replace(RUNTIME_REQUIRE, (_match, local: string, path: string) => {
      imports.push(`import ${local}Module from '${path}.js';`);
      return `const ${local} = ${local}Module.default;`;
    });
  const declarations = module.exports.map(
    (entry) => `export declare const ${entry.name}: ValidateFunction<${entry.type}>;`,
  );
  return {
    code: [HEADER, ...imports, code.trim(), ''].join('\n'),
    types: [
      HEADER,
      "import type { ValidateFunction } from 'ajv';",
      ...module.typeImports,
      '',
      ...declarations,
      '',
    ].join('\n'),
  };
}

/** The generated files: path relative to the repository root → contents. */
export function generateValidators(): Map<string, string> {
  const files = new Map<string, string>();
  for (const module of MODULES) {
    const { code, types } = generate(module);
    const base = `${GENERATED_DIRECTORY}/${module.file.replace(/\.js$/, '')}`;
    files.set(`${base}.js`, code);
    files.set(`${base}.d.ts`, types);
  }
  return files;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  for (const [file, source] of generateValidators()) {
    writeFileSync(`${root}${file}`, source);
    process.stdout.write(`wrote ${file} (${Math.round(source.length / 1024)} KiB)\n`);
  }
}
