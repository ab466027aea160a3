interface Waiting<V> {
  load: () => Promise<V>;
  promise: Promise<V>;
  resolve: (value: Promise<V>) => void;
}

interface Slot<V> {
  /** Callers who asked while the current run was going: they share the run after it. */
  next: Waiting<V> | null;
}

/**
 * Identical reads asked for at the same time share one run (the Channel API's lists: many workers of
 * one integration polling the same page with the same key).
 *
 * A caller who asks while the same read is running does not get that run's answer: the run's snapshot
 * may predate the caller's request (a write the caller saw committed just before asking would be
 * missing). It waits for the next run, started when the current one ends and shared by everyone who
 * asked meanwhile. Every caller thus gets an answer read after it asked, exactly as if it had run its
 * own, and any number of concurrent callers cost at most two runs at a time per key. Entries live only
 * while a run is going, so memory is bounded by the requests in flight.
 */
export class SharedReads<V> {
  private readonly running = new Map<string, Slot<V>>();

  /** Runs `load` for `key`, or shares the next run of a read with the same key. */
  read(key: string, load: () => Promise<V>): Promise<V> {
    const slot = this.running.get(key);
    if (!slot) return this.start(key, load);
    if (!slot.next) {
      let resolve!: (value: Promise<V>) => void;
      const promise = new Promise<V>((r) => (resolve = r));
      slot.next = { load, promise, resolve };
    }
    return slot.next.promise;
  }

  private start(key: string, load: () => Promise<V>): Promise<V> {
    const slot: Slot<V> = { next: null };
    this.running.set(key, slot);
    let run: Promise<V>;
    try {
      run = load();
    } catch (err) {
      run = Promise.reject(err as Error);
    }
    const done = () => {
      this.running.delete(key);
      const next = slot.next;
      if (next) next.resolve(this.start(key, next.load));
    };
    run.then(done, done);
    return run;
  }
}
