/**
 * A value made from an input that can change (a reload's admin key, the envelope made from
 * it), made again only when the input is no longer the same (`!==`); the same value otherwise.
 */
export function remadeOnChange<I, O>(input: () => I, make: (input: I) => O): () => O {
  let madeFrom: I | undefined;
  let made: { readonly value: O } | undefined;
  return () => {
    const current = input();
    if (made === undefined || current !== madeFrom) {
      madeFrom = current;
      made = { value: make(current) };
    }
    return made.value;
  };
}
