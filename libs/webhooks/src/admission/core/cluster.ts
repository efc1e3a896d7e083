// Cluster defaulting and validation, as upstream core/webhooks/admission/cluster.go for a Cluster without a managed
// topology. Managed topologies (ClusterClass) are not reconciled by this manager: a Cluster with spec.topology gets
// upstream's answer with the ClusterTopology gate off (its default), and — should the gate be turned on — a Forbidden
// saying so, as the ClusterClass-driven checks of validateTopology are not ported.
import { FeatureGates } from '@capi/controller-runtime';
import { ClusterGVK, type Cluster } from '@capi/api';
import { isLabelValue } from '@capi/apimachinery';
import { fieldError, invalidError, type FieldError } from '../field-errors';
import type { CustomDefaulter, CustomValidator, Warnings } from '../types';
import { parseCIDRError } from '../util/go-net';

export interface ClusterWebhookOptions {
  /** Defaults to upstream's defaults (ClusterTopology disabled). */
  featureGates?: FeatureGates;
}

/** Topology.IsDefined / ContractVersionedObjectReference.IsDefined: anything set. */
const isDefined = (v: object | undefined): boolean =>
  !!v && Object.values(v).some((x) => x !== undefined && x !== null && x !== '' && !isEmptyObject(x));
const isEmptyObject = (x: unknown): boolean =>
  typeof x === 'object' && x !== null && !Array.isArray(x) && !isDefined(x as object);

export class ClusterWebhook implements CustomDefaulter<Cluster>, CustomValidator<Cluster> {
  private readonly gates: FeatureGates;

  constructor(opts: ClusterWebhookOptions = {}) {
    this.gates = opts.featureGates ?? FeatureGates.defaults();
  }

  /**
   * Upstream defaults only managed topologies: a `v` prefix on the version and a required classRef.name. Variables
   * are defaulted from the ClusterClass, which upstream skips when that ClusterClass cannot be found — as here,
   * where no ClusterClass is served.
   */
  default(cluster: Cluster): void {
    const topology = cluster.spec?.topology as { version?: unknown; classRef?: { name?: unknown } } | undefined;
    if (!topology || !isDefined(topology)) return;
    const version = typeof topology.version === 'string' ? topology.version : '';
    if (!version.startsWith('v')) topology.version = `v${version}`;
    if (!topology.classRef?.name) {
      throw invalidError(ClusterGVK.group, ClusterGVK.kind, cluster.metadata.name ?? '', [
        fieldError.required('spec.topology.classRef.name', 'cannot be empty'),
      ]);
    }
  }

  validateCreate(cluster: Cluster): Warnings {
    return this.validate(undefined, cluster);
  }

  validateUpdate(oldCluster: Cluster, newCluster: Cluster): Warnings {
    return this.validate(oldCluster, newCluster);
  }

  validateDelete(): Warnings {
    return [];
  }

  validate(oldCluster: Cluster | undefined, newCluster: Cluster): Warnings {
    const errs: FieldError[] = [];
    const name = newCluster.metadata.name ?? '';
    // The Cluster name is used as a label value.
    for (const e of isLabelValue(name))
      errs.push(fieldError.invalid('metadata.name', name, `must be a valid label value ${e}`));

    const spec = newCluster.spec ?? {};
    const oldSpec = oldCluster?.spec;
    if (!isDefined(spec.infrastructureRef) && isDefined(oldSpec?.infrastructureRef))
      errs.push(fieldError.forbidden('spec.infrastructureRef', 'cannot be removed'));
    if (!isDefined(spec.controlPlaneRef) && !isDefined(spec.infrastructureRef) && !isDefined(spec.topology)) {
      errs.push(
        fieldError.forbidden(
          'spec',
          'one of spec.controlPlaneRef, spec.infrastructureRef or spec.topology must be set',
        ),
      );
    }
    if (!isDefined(spec.controlPlaneRef) && isDefined(oldSpec?.controlPlaneRef))
      errs.push(fieldError.forbidden('spec.controlPlaneRef', 'cannot be removed'));

    errs.push(...validateCIDRBlocks('spec.clusterNetwork.pods.cidrBlocks', spec.clusterNetwork?.pods?.cidrBlocks));
    errs.push(
      ...validateCIDRBlocks('spec.clusterNetwork.services.cidrBlocks', spec.clusterNetwork?.services?.cidrBlocks),
    );

    if (isDefined(spec.topology)) {
      errs.push(
        this.gates.enabled('ClusterTopology')
          ? fieldError.forbidden('spec.topology', 'topology is not supported by this manager')
          : fieldError.forbidden('spec.topology', 'can be set only if the ClusterTopology feature flag is enabled'),
      );
    }
    if (oldSpec && isDefined(oldSpec.topology) && !isDefined(spec.topology))
      errs.push(fieldError.forbidden('spec.topology', 'cannot be removed from an existing Cluster'));

    if (errs.length) throw invalidError(ClusterGVK.group, ClusterGVK.kind, name, errs);
    return [];
  }
}

/** Upstream's validateCIDRBlocks: each block must parse as net.ParseCIDR does. */
function validateCIDRBlocks(path: string, cidrs: readonly string[] | undefined): FieldError[] {
  const errs: FieldError[] = [];
  (cidrs ?? []).forEach((cidr, i) => {
    const err = parseCIDRError(cidr);
    if (err) errs.push(fieldError.invalid(`${path}[${i}]`, cidr, err));
  });
  return errs;
}
