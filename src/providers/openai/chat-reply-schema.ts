import { Type } from '@sinclair/typebox';

/** What the gateway reads of one choice of a reply. */
const Choice = Type.Object({
  message: Type.Optional(Type.Unknown()),
  finish_reason: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});

/**
 * A node's `chat.completion`, loosely: the fields the gateway reads (choices, the model id,
 * usage, the tier); the rest passes to the client as the node wrote it. Checked by the generated `isChatReply`.
 */
export const ChatReplySchema = Type.Object({
  model: Type.Optional(Type.Unknown()),
  choices: Type.Array(Choice),
  usage: Type.Optional(Type.Unknown()),
  service_tier: Type.Optional(Type.Unknown()),
});
