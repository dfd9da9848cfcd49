/**
 * The loop behind the once-a-minute tasks (retention, holding period): runs `work` at start and then
 * every minute, never two runs at once (a tick while one runs is skipped), the timer unref'd so it
 * never holds the process open; stop() waits for the run in progress. `work` handles its own errors.
 */
export class EveryMinute {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(private readonly work: () => Promise<void>) {}

  start(): void {
    this.timer = setInterval(() => this.tick(), 60_000);
    this.timer.unref();
    this.tick();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  private tick(): void {
    if (this.running) return;
    this.running = this.work().finally(() => {
      this.running = undefined;
    });
  }
}
