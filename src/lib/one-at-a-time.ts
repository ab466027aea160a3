/**
 * An async step run one at a time: asked again while it runs, it runs once more afterwards, however
 * many asks came meanwhile — so wake-ups from notifications, polls and finished work fold into one
 * more look instead of piling up. Nothing runs while `skip()` says so (a stopping worker).
 */
export class OneAtATime {
  private running = false;
  private again = false;
  private current: Promise<void> = Promise.resolve();

  constructor(
    private readonly step: () => Promise<void>,
    private readonly skip: () => boolean,
  ) {}

  /** Runs the step now, or once more after the run in progress. */
  run(): void {
    if (this.skip()) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    this.current = this.step().finally(() => {
      this.running = false;
      if (this.again) {
        this.again = false;
        this.run();
      }
    });
  }

  /**
   * Resolves once no run is in progress nor owed: a stopping worker's last look, whose outcome it
   * must still take care of.
   */
  async idle(): Promise<void> {
    while (this.running) await this.current.catch(() => undefined);
  }
}
