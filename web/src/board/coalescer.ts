// Pure, with no imports: the console's board and the benchmark's board client (bench/board.ts) read
// the board on the same schedule.

/**
 * Calls `run` soon after each `poke`: at once when idle, else once at the end of the gap since the
 * last start (every poke meanwhile folds into that one), and never while a run is going (a poke during
 * a run is one more after it). The first event after a quiet moment is thus read at once, and a
 * storm of events costs one read per gap.
 */
export function coalescer(
  run: () => Promise<void>,
  gapMs: number,
  now: () => number = () => performance.now(),
) {
  let running = false;
  let again = false;
  let last = -Infinity;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const start = async () => {
    timer = null;
    running = true;
    last = now();
    try {
      await run();
    } finally {
      running = false;
      if (again) {
        again = false;
        poke();
      }
    }
  };
  const poke = () => {
    if (running) {
      again = true;
      return;
    }
    if (timer) return;
    timer = setTimeout(() => void start(), Math.max(0, last + gapMs - now()));
  };
  const cancel = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    again = false;
  };
  return { poke, cancel };
}
