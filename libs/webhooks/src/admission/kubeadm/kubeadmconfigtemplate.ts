// KubeadmConfigTemplate defaulting and validation (bootstrap/kubeadm/webhooks/admission/kubeadmconfigtemplate.go).
import { BOOTSTRAP_GROUP, type KubeadmConfigSpec, type KubeadmConfigTemplate } from '@capi/api';
import { invalidError } from '../field-errors';
import type { AdmissionRequestInfo, CustomDefaulter, CustomValidator, Warnings } from '../types';
import {
  defaultFeatureGates,
  dig,
  isDefined,
  isMap,
  validateTemplateMetadata,
  type FeatureGateReader,
  type JsonMap,
} from './common';
import { validateKubeadmConfigSpec } from './kubeadmconfig';

/** clusterv1.TopologyDryRunAnnotation: set by the topology controller on its dry-run server-side applies. */
export const TOPOLOGY_DRY_RUN_ANNOTATION = 'topology.cluster.x-k8s.io/dry-run';

/** util/topology IsDryRunRequest: a dry-run request for an object carrying the topology dry-run annotation. */
export const isTopologyDryRunRequest = (req: AdmissionRequestInfo, annotations?: Record<string, string>): boolean =>
  req.dryRun === true && annotations !== undefined && TOPOLOGY_DRY_RUN_ANNOTATION in annotations;

const ensureMap = (parent: JsonMap, key: string): JsonMap => {
  if (!isMap(parent[key])) parent[key] = {};
  return parent[key] as JsonMap;
};

/**
 * ApplyPreviousKubeadmConfigDefaults: the defaults older Cluster API versions set, applied only to the topology
 * controller's dry-run so objects created back then do not look changed (and roll out) now those defaults are gone.
 */
export function applyPreviousKubeadmConfigDefaults(c: KubeadmConfigSpec): void {
  if (!c.format) c.format = 'cloud-config';
  const spec = c as JsonMap;
  for (const cfg of ['initConfiguration', 'joinConfiguration']) {
    const nodeRegistration = ensureMap(ensureMap(spec, cfg), 'nodeRegistration');
    if (!nodeRegistration.imagePullPolicy) nodeRegistration.imagePullPolicy = 'IfNotPresent';
  }
  const exec = dig(spec, 'joinConfiguration', 'discovery', 'file', 'kubeConfig', 'user', 'exec');
  if (isMap(exec) && isDefined(exec) && !exec.apiVersion) {
    exec.apiVersion = 'client.authentication.k8s.io/v1';
  }
}

export class KubeadmConfigTemplateWebhook
  implements CustomDefaulter<KubeadmConfigTemplate>, CustomValidator<KubeadmConfigTemplate>
{
  constructor(private readonly gates: FeatureGateReader = defaultFeatureGates()) {}

  default(obj: KubeadmConfigTemplate, req: AdmissionRequestInfo): void {
    if (isTopologyDryRunRequest(req, obj.metadata?.annotations)) {
      obj.spec.template.spec ??= {};
      applyPreviousKubeadmConfigDefaults(obj.spec.template.spec);
    }
  }

  validateCreate(obj: KubeadmConfigTemplate): Warnings {
    return this.validate(obj);
  }

  validateUpdate(_oldObj: KubeadmConfigTemplate, newObj: KubeadmConfigTemplate): Warnings {
    return this.validate(newObj);
  }

  validateDelete(): Warnings {
    return [];
  }

  private validate(obj: KubeadmConfigTemplate): Warnings {
    const errs = [
      ...validateKubeadmConfigSpec(obj.spec?.template?.spec, false, 'spec.template.spec', this.gates),
      ...validateTemplateMetadata(obj.spec?.template?.metadata, 'spec.template.metadata'),
    ];
    if (errs.length > 0) throw invalidError(BOOTSTRAP_GROUP, 'KubeadmConfigTemplate', obj.metadata?.name ?? '', errs);
    return [];
  }
}
