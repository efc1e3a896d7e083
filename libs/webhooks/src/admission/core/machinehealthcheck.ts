// MachineHealthCheck defaulting and validation, as upstream core/webhooks/admission/machinehealthcheck.go.
import { CLUSTER_NAME_LABEL, MachineHealthCheckGVK, type MachineHealthCheck } from '@capi/api';
import { labelSelectorAsSelector, type Selector } from '@capi/apimachinery';
import { fieldError, invalidError, type FieldError } from '../field-errors';
import type { CustomDefaulter, CustomValidator, Warnings } from '../types';
import { goLabelSelector, intOrPercentError, intOrStringText } from '../util/values';

/** clusterv1.DefaultNodeStartupTimeoutSeconds. */
export const DEFAULT_NODE_STARTUP_TIMEOUT_SECONDS = 600;
/** Minimum time allowed for a node to start up; 0 disables the check. */
const MIN_NODE_STARTUP_TIMEOUT_SECONDS = 30;

export interface MachineHealthCheckWebhookOptions {
  /** Upstream's SetMinNodeStartupTimeoutSeconds: lowers the minimum for integration tests only. */
  minNodeStartupTimeoutSeconds?: number;
}

export class MachineHealthCheckWebhook
  implements CustomDefaulter<MachineHealthCheck>, CustomValidator<MachineHealthCheck>
{
  private readonly minNodeStartupTimeoutSeconds: number;

  constructor(opts: MachineHealthCheckWebhookOptions = {}) {
    this.minNodeStartupTimeoutSeconds = opts.minNodeStartupTimeoutSeconds ?? MIN_NODE_STARTUP_TIMEOUT_SECONDS;
  }

  default(m: MachineHealthCheck): void {
    m.metadata.labels = { ...(m.metadata.labels ?? {}), [CLUSTER_NAME_LABEL]: m.spec.clusterName };
    m.spec.checks ??= {};
    m.spec.checks.nodeStartupTimeoutSeconds ??= DEFAULT_NODE_STARTUP_TIMEOUT_SECONDS;
  }

  validateCreate(m: MachineHealthCheck): Warnings {
    this.validate(undefined, m);
    return [];
  }

  validateUpdate(oldM: MachineHealthCheck, newM: MachineHealthCheck): Warnings {
    this.validate(oldM, newM);
    return [];
  }

  validateDelete(): Warnings {
    return [];
  }

  /** Throws the 422 Invalid upstream's validate returns. */
  validate(oldMHC: MachineHealthCheck | undefined, newMHC: MachineHealthCheck): void {
    const errs: FieldError[] = [];
    const spec = newMHC.spec;
    const selectorValue = goLabelSelector(spec.selector ?? {});

    let selector: Selector | undefined;
    try {
      selector = labelSelectorAsSelector(spec.selector ?? {});
    } catch (e) {
      errs.push(fieldError.invalid('spec.selector', selectorValue, (e as Error).message));
    }
    if (selector?.empty) errs.push(fieldError.required('spec.selector', 'selector must not be empty'));

    const selectedCluster = spec.selector?.matchLabels?.[CLUSTER_NAME_LABEL];
    if (selectedCluster !== undefined && selectedCluster !== spec.clusterName) {
      errs.push(
        fieldError.invalid(
          'spec.selector',
          selectorValue,
          'cannot specify a cluster selector other than the one specified by ClusterName',
        ),
      );
    }

    if (oldMHC && oldMHC.spec.clusterName !== spec.clusterName)
      errs.push(fieldError.forbidden('spec.clusterName', 'field is immutable'));

    const timeout = spec.checks?.nodeStartupTimeoutSeconds;
    if (timeout !== undefined && timeout !== 0 && timeout < this.minNodeStartupTimeoutSeconds)
      errs.push(fieldError.invalid('spec.checks.nodeStartupTimeoutSeconds', timeout, 'must be at least 30s'));

    const max = spec.remediation?.triggerIf?.unhealthyLessThanOrEqualTo;
    const maxErr = max === undefined ? undefined : intOrPercentError(max);
    if (max !== undefined && maxErr) {
      errs.push(
        fieldError.invalid(
          'spec.remediation.triggerIf.unhealthyLessThanOrEqualTo',
          intOrStringText(max),
          `must be either an int or a percentage: ${maxErr}`,
        ),
      );
    }

    if (errs.length) {
      throw invalidError(MachineHealthCheckGVK.group, MachineHealthCheckGVK.kind, newMHC.metadata.name ?? '', errs);
    }
  }
}
