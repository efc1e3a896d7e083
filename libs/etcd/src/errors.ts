// Error helpers with the messages upstream's Go code produces: pkg/errors Wrap ("<message>: <cause>") and
// k8s.io/apimachinery/pkg/util/errors NewAggregate (one message as is, several distinct ones as "[a, b]").

/** An error whose message is `message: <cause's message>`, keeping the cause (pkg/errors Wrap). */
export function wrapError(cause: unknown, message: string): Error {
  return new Error(`${message}: ${errorMessage(cause)}`, { cause });
}

export const errorMessage = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/**
 * The aggregate of `errors` (kerrors.NewAggregate): undefined for none, the error itself for one, else an Error whose
 * message lists the distinct messages in order, bracketed.
 */
export function aggregateErrors(errors: readonly unknown[]): Error | undefined {
  if (errors.length === 0) return undefined;
  if (errors.length === 1) return errors[0] instanceof Error ? errors[0] : new Error(String(errors[0]));
  const distinct = [...new Set(errors.map(errorMessage))];
  const message = distinct.length === 1 ? distinct[0] : `[${distinct.join(', ')}]`;
  return new AggregateError(errors, message);
}

/** The innermost cause of a chain of wrapped errors (upstream workload_cluster_conditions.go unwrapAll). */
export function rootCause(e: unknown): unknown {
  let current = e;
  while (current instanceof Error && current.cause !== undefined) current = current.cause;
  return current;
}
