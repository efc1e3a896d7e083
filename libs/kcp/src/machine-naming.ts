// Names of new control-plane Machines (upstream controlplane/kubeadm/pkg/desiredstate/desired_state.go
// ComputeDesiredMachine with internal/topology/names KCPMachineNameGenerator) and the checks upstream's KCP webhook
// makes on spec.machineNaming.template (webhooks/admission/kubeadmcontrolplane.go validateNaming): without a webhook
// here, the reconciler reports them instead of creating a Machine.
import type { KubeadmControlPlane } from '@capi/api';
import { generateNameFromTemplate, isDNS1123Subdomain } from '@capi/apimachinery';
import { DesiredStateError } from './desired';

const DEFAULT_TEMPLATE = '{{ .kubeadmControlPlane.name }}-{{ .random }}';
const RANDOM_ACTION = '{{ .random }}';

const generate = (template: string, clusterName: string, kcpName: string, random?: () => number): string =>
  generateNameFromTemplate(template, clusterName, { kubeadmControlPlane: { name: kcpName } }, random);

/** The name of a new Machine; DesiredStateError (upstream's messages) when the template cannot give one. */
export function newMachineName(kcp: KubeadmControlPlane, clusterName: string, random?: () => number): string {
  let template = DEFAULT_TEMPLATE;
  const custom = kcp.spec.machineNaming?.template;
  if (custom) {
    template = custom;
    if (!template.includes(RANDOM_ACTION))
      throw new DesiredStateError(
        'failed to compute desired Machine: cannot generate Machine name: {{ .random }} is missing in machineNaming.template',
      );
  }
  try {
    return generate(template, clusterName, kcp.metadata.name ?? '', random);
  } catch (e) {
    throw new DesiredStateError(
      `failed to compute desired Machine: failed to generate Machine name: ${(e as Error).message}`,
    );
  }
}

/** Upstream validateNaming: field errors for spec.machineNaming.template, empty when it is fine (or unset). */
export function machineNamingTemplateErrors(kcp: KubeadmControlPlane): string[] {
  const template = kcp.spec.machineNaming?.template;
  if (!template) return [];
  const invalid = (detail: string) =>
    `spec.machineNaming.template: Invalid value: ${JSON.stringify(template)}: ${detail}`;
  const errors: string[] = [];
  if (!template.includes(RANDOM_ACTION)) errors.push(invalid('invalid template, {{ .random }} is missing'));
  let name: string;
  try {
    name = generate(template, 'cluster', 'kubeadmcontrolplane');
  } catch (e) {
    return [...errors, invalid(`invalid template: ${(e as Error).message}`)];
  }
  for (const err of isDNS1123Subdomain(name))
    errors.push(invalid(`invalid template, generated names would not be valid Kubernetes object names: ${err}`));
  return errors;
}
