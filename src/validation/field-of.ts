/** A property of a value of unknown type (an error's `code`, a parsed body's field); undefined when the value is not an object. */
export function fieldOf(value: unknown, name: PropertyKey): unknown {
  return typeof value === 'object' && value !== null ? Reflect.get(value, name) : undefined;
}
