/**
 * An async step run one at a time: asked again while it runs, it runs once more afterwards, however
 * many asks came meanwhile — so wake-ups from notifications, polls and finished work fold into one
 * more look instead of piling up. Nothing runs while `skip()` says so (a stopping worker).
 */
export class OneAtATime {
  private running = false;
  private again = false;

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
    void this.step().finally(() => {
      this.running = false;
      if (this.again) {
        this.again = false;
        this.run();
      }
    });
  }
}
