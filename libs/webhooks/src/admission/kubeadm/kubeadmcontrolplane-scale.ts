// Validation of writes to kubeadmcontrolplanes/scale (controlplane/kubeadm/webhooks/admission/
// kubeadmcontrolplane_scale.go ScaleValidator): `kubectl scale kcp` must not bypass the replica rules of the
// KubeadmControlPlane webhook. The request's object is an autoscaling/v1 Scale; whether etcd is external is read from
// the KubeadmControlPlane itself, through an injected reader (upstream's client.Reader).
import type { KubeadmControlPlane } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';
import { AdmissionError } from '../field-errors';
import type { CustomValidator, Warnings } from '../types';
import { dig, isDefined } from './common';

/** autoscaling/v1 Scale, the parts read here. */
export interface Scale extends KubeObject {
  spec?: { replicas?: number };
}

/** Reads the KubeadmControlPlane a Scale belongs to (rejects when it cannot be read). */
export type KubeadmControlPlaneReader = (namespace: string, name: string) => Promise<KubeadmControlPlane>;

/** admission.Denied(message): 403 Forbidden with the message as is. */
const denied = (message: string): AdmissionError =>
  new AdmissionError({ apiVersion: 'v1', kind: 'Status', status: 'Failure', message, reason: 'Forbidden', code: 403 });

/** admission.Errored(code, err): the code and the error's text, no reason. */
const errored = (code: number, message: string): AdmissionError =>
  new AdmissionError({ apiVersion: 'v1', kind: 'Status', status: 'Failure', message, code });

export class KubeadmControlPlaneScaleValidator implements CustomValidator<Scale> {
  constructor(private readonly readKubeadmControlPlane: KubeadmControlPlaneReader) {}

  validateCreate(): Warnings {
    return [];
  }

  async validateUpdate(_oldScale: Scale, scale: Scale): Promise<Warnings> {
    const namespace = scale.metadata?.namespace ?? '';
    const name = scale.metadata?.name ?? '';
    let kcp: KubeadmControlPlane;
    try {
      kcp = await this.readKubeadmControlPlane(namespace, name);
    } catch (e) {
      throw errored(500, `failed to get KubeadmControlPlane ${namespace}/${name}: ${(e as Error).message}`);
    }
    // A missing spec.replicas decodes as Go's zero.
    const replicas = scale.spec?.replicas ?? 0;
    if (replicas <= 0) throw denied('replicas should be greater than zero');
    const externalEtcd = isDefined(dig(kcp.spec?.kubeadmConfigSpec?.clusterConfiguration, 'etcd', 'external'));
    if (!externalEtcd && replicas % 2 === 0) throw denied('replicas cannot be an even number when etcd is stacked');
    return [];
  }

  validateDelete(): Warnings {
    return [];
  }
}
