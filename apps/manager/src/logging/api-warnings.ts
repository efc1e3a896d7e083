// What the manager does with the API server's warnings: cluster-api's util/apiwarnings.DefaultHandler, which every
// upstream manager installs (restConfig.WarningHandler, logger "API Server Warning"): log each warning, except the
// finalizer-name warnings kube-apiserver gives for Cluster API's own finalizers (machine.cluster.x-k8s.io, ...: no path,
// kubernetes-sigs/cluster-api#10914), which users cannot act on.
import { CLUSTER_GROUP } from '@capi/api';
import { ApiWarningHandler } from '@capi/controller-runtime';

/** util/apiwarnings.DomainQualifiedFinalizerWarning: the warning for a finalizer of `domain` without a path. */
export function domainQualifiedFinalizerWarning(domain: string): RegExp {
  // As upstream, the domain is not escaped: "cluster.x-k8s.io" also matches "inmemorymachine.infrastructure.cluster.x-k8s.io".
  return new RegExp(
    `^metadata.finalizers:.*${domain}.*prefer a domain-qualified finalizer name (including a path \\(\\/\\) )?to avoid accidental conflicts with other finalizer writers$`,
  );
}

export const API_WARNINGS_LOGGER = 'API Server Warning';

/** util/apiwarnings.DefaultHandler. */
export function defaultApiWarnings(log?: (message: string) => void): ApiWarningHandler {
  return new ApiWarningHandler({
    loggerName: API_WARNINGS_LOGGER,
    log,
    discard: [domainQualifiedFinalizerWarning(CLUSTER_GROUP)],
  });
}
