/** Waits for the work in flight, at most `ms`: a stopping node gives up on what takes longer. */
export async function settleWithin(work: Iterable<Promise<unknown>>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.allSettled([...work]),
    new Promise((r) => {
      timer = setTimeout(r, ms);
    }),
  ]);
  clearTimeout(timer);
}
