// Machine defaulting and validation webhooks (upstream core/webhooks/admission/machine.go).
import { CLUSTER_GROUP, CLUSTER_NAME_LABEL, type Machine } from '@capi/api';
import { type FieldError, fieldError, invalidError } from '../field-errors';
import type { CustomDefaulter, CustomValidator, Warnings } from '../types';
import {
  type CoreWebhookOptions,
  isRefDefined,
  MACHINE_POOL_NAME_LABEL,
  validateMachineTaints,
  validateMachineTaintsForWorkers,
  validateVersion,
} from './validation';

/** Upstream defaultNodeDeletionTimeoutSeconds. */
export const DEFAULT_NODE_DELETION_TIMEOUT_SECONDS = 10;

type Spec = Machine['spec'];

/** labels.IsMachinePoolOwned (util/labels/helpers.go): the pool-name label or a MachinePool owner. */
const isMachinePoolOwned = (m: Machine): boolean =>
  MACHINE_POOL_NAME_LABEL in (m.metadata?.labels ?? {}) ||
  (m.metadata?.ownerReferences ?? []).some((o) => o.kind === 'MachinePool');

export class MachineWebhook implements CustomDefaulter<Machine>, CustomValidator<Machine> {
  constructor(private readonly opts: CoreWebhookOptions = {}) {}

  default(m: Machine): void {
    m.spec ??= {} as Spec;
    m.metadata.labels = { ...m.metadata.labels, [CLUSTER_NAME_LABEL]: m.spec.clusterName ?? '' };
    if (m.spec.version && !m.spec.version.startsWith('v')) m.spec.version = `v${m.spec.version}`;
    m.spec.deletion ??= {};
    m.spec.deletion.nodeDeletionTimeoutSeconds ??= DEFAULT_NODE_DELETION_TIMEOUT_SECONDS;
  }

  validateCreate(m: Machine): Warnings {
    this.validate(undefined, m);
    return [];
  }

  validateUpdate(oldM: Machine, newM: Machine): Warnings {
    this.validate(oldM, newM);
    return [];
  }

  validateDelete(): Warnings {
    return [];
  }

  private validate(oldM: Machine | undefined, newM: Machine): void {
    const errs: FieldError[] = [];
    const spec: Partial<Spec> = newM.spec ?? {};
    // MachinePool Machines have no bootstrap configRef: the MachinePool owns the bootstrap config.
    if (!isRefDefined(spec.bootstrap?.configRef) && spec.bootstrap?.dataSecretName == null && !isMachinePoolOwned(newM))
      errs.push(
        fieldError.required(
          'spec.bootstrap',
          'expected either spec.bootstrap.dataSecretName or spec.bootstrap.configRef to be populated',
        ),
      );

    if (oldM && (oldM.spec?.clusterName ?? '') !== (spec.clusterName ?? ''))
      errs.push(fieldError.forbidden('spec.clusterName', 'field is immutable'));

    errs.push(...validateVersion(spec.version, 'spec.version'));
    errs.push(...validateMachineTaints(spec.taints, 'spec.taints', this.opts));
    errs.push(...validateMachineTaintsForWorkers(spec.taints, newM.metadata?.labels, 'spec.taints', this.opts));

    if (errs.length) throw invalidError(CLUSTER_GROUP, 'Machine', newM.metadata?.name ?? '', errs);
  }
}
