/** Every item of an async iterable, in order. For lists known to be small; large ones are streamed instead. */
export async function toArray<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}
