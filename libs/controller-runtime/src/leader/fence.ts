// A leader that was paused (SIGSTOP, a long GC, a frozen VM) past its renew deadline may have lost the lease to
// another candidate without having run its renew loop yet. client-go's elector steps down only when that loop runs;
// in-flight reconciles resume first and write (or call an extension) as a leader that is no longer one. The fence
// refuses such work at once: from the moment the last successful renewal is older than the renew deadline — which is
// shorter than the lease duration, so before any other candidate can take the lease over.

export class LeadershipLostError extends Error {
  constructor(what: string) {
    super(`${what} refused: leader election lost (the lease was not renewed within the renew deadline)`);
    this.name = 'LeadershipLostError';
  }
}

/** Shared by the client, the Runtime SDK client and the Manager, which binds it to its LeaderElector. */
export class LeadershipFence {
  private holds?: () => boolean;

  /** `holds()` is false while work must be refused. Unbound (no leader election): nothing is refused. */
  bind(holds: () => boolean): void {
    this.holds = holds;
  }

  /** Throws LeadershipLostError when this process led and may no longer. */
  check(what: string): void {
    if (this.holds && !this.holds()) throw new LeadershipLostError(what);
  }
}
