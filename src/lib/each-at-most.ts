/**
 * Runs `fn` for every item, at most `limit` at a time, starting them in order; resolves once all
 * have settled. Every item runs whatever the others do: `fn` deals with its own failures.
 */
export async function eachAtMost<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as T;
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}
