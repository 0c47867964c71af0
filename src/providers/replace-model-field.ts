/**
 * The reply text with its top-level `"model":"<node model>"` swapped for the model id the
 * client asked for, without re-serializing the rest; undefined when the field is not
 * found in the compact form before `contentKey` (the caller then serializes the parsed
 * object). A JSON string value cannot contain an unescaped quote, so the first
 * `"model":"<node model>"` in the text is a key and its value; the object's own fields come
 * before its content (`"choices"` of a chat completion, `"output"` of a Response) in every
 * server we know, and the check keeps a nested one out. `nodeModelField` and
 * `clientModelField` are the `"model":<JSON string>` texts.
 */
export function replaceModelField(
  text: string,
  nodeModelField: string,
  clientModelField: string,
  contentKey = '"choices"',
): string | undefined {
  const at = text.indexOf(nodeModelField);
  if (at === -1) return undefined;
  if (text.lastIndexOf(contentKey, at) !== -1) return undefined;
  return text.slice(0, at) + clientModelField + text.slice(at + nodeModelField.length);
}

/** `"model":"<id>"` as it appears in compact JSON. */
export function modelField(model: string): string {
  return `"model":${JSON.stringify(model)}`;
}
