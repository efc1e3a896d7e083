// Ctrl-C or a kill of a bench must not leave its servers, etcd, kube-apiserver or the manager behind: on SIGINT or
// SIGTERM, `stop` runs, then the bench exits 130 with one `error:` line.
export interface Interrupt {
  /** True once a signal came. */
  readonly interrupted: boolean;
  /**
   * For a bench whose run failed after a signal (its processes being stopped): never settles, as the handler stops
   * them, reports and exits; the bench neither reports a second error nor goes on.
   */
  exiting(): Promise<never>;
  /** Removes the handlers. */
  off(): void;
}

export function stopOnInterrupt(stop: () => Promise<unknown>, log: (line: string) => void): Interrupt {
  let interrupted = false;
  const onSignal = (signal: NodeJS.Signals) => {
    interrupted = true;
    log(`${signal}: stopping the bench's processes`);
    void stop()
      .catch((e) => log(`cleanup: ${(e as Error).message}`))
      .finally(() => {
        process.stderr.write(`error: interrupted by ${signal}\n`);
        process.exit(130);
      });
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return {
    get interrupted() {
      return interrupted;
    },
    exiting: () => new Promise<never>(() => undefined),
    off: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
