// KubeadmConfig bootstrap controller (in-memory flavour): once the owning Machine exists, renders fake cloud-init into
// the data Secret and sets status.initialization.dataSecretCreated / status.dataSecretName. Like upstream CABPK the
// data is generated once; later spec changes (e.g. in-place `files` updates) are the updater's business.
import { Inject, Optional } from '@nestjs/common';
import { BOOTSTRAP_API_VERSION, KubeadmConfigGVK, MachineGVK, type KubeadmConfig, type Machine } from '@capi/api';
import {
  CACHE,
  CACHED_CLIENT,
  KUBE_CLIENT,
  ReconcilerFor,
  type Client,
  type InformerCache,
  type ReconcileContext,
  type Reconciler,
  type Request,
  type Result,
} from '@capi/controller-runtime';
import { KUBEADM_BOOTSTRAP_FIELD_MANAGER } from '../api/constants';
import { INMEMORY_OPTIONS, type InMemoryProviderOptions } from '../options';
import { ownerMachineName } from '../machine/decide';
import { BootstrapDataError, bootstrapDataSecret, desiredConfigStatus, renderCloudInit } from './cloud-init';
import { resolveSecretFiles } from './secret-files';
import { jsonEqual } from '@capi/apimachinery';
import { machineInputsChangedPredicate } from '../util/machine-inputs';

/** Requeue while a referenced Secret is missing (Secrets are not watched). */
const RETRY_MS = 10_000;
/** How long a reconcile waits for the cache to observe its own status write. */
const CACHE_WAIT_MS = 5000;

@ReconcilerFor({
  name: 'kubeadmconfig',
  for: { apiVersion: BOOTSTRAP_API_VERSION, kind: KubeadmConfigGVK.kind },
  watches: [
    {
      apiVersion: MachineGVK.apiVersion,
      kind: MachineGVK.kind,
      map: (m) => {
        const ref = (m as Machine).spec?.bootstrap?.configRef;
        return ref?.kind === KubeadmConfigGVK.kind && m.metadata.namespace
          ? [{ namespace: m.metadata.namespace, name: ref.name }]
          : [];
      },
      predicates: [machineInputsChangedPredicate],
    },
  ],
  maxConcurrentReconciles: 10,
})
export class KubeadmConfigReconciler implements Reconciler {
  private readonly now: () => number;

  constructor(
    @Inject(CACHED_CLIENT) private readonly client: Client,
    /** Secrets are read directly (not cached). */
    @Inject(KUBE_CLIENT) private readonly direct: Client,
    @Inject(INMEMORY_OPTIONS) options: InMemoryProviderOptions,
    @Optional() @Inject(CACHE) private readonly cache?: InformerCache,
  ) {
    this.now = options.now ?? Date.now;
  }

  async reconcile(req: Request, ctx: ReconcileContext): Promise<Result | void> {
    const config = await this.client.tryGet<KubeadmConfig>({
      apiVersion: BOOTSTRAP_API_VERSION,
      kind: KubeadmConfigGVK.kind,
      namespace: req.namespace,
      name: req.name,
    });
    if (!config || config.metadata.deletionTimestamp) return; // the data Secret is garbage-collected with its owner
    if (config.status?.initialization?.dataSecretCreated) return;
    const machineName = ownerMachineName(config);
    if (!machineName) return; // waiting for the Machine controller to set the ownerReference
    const machine = await this.client.tryGet<Machine>({
      apiVersion: MachineGVK.apiVersion,
      kind: 'Machine',
      namespace: req.namespace,
      name: machineName,
    });
    if (!machine) return;

    let outcome: { secretName: string } | { error: BootstrapDataError };
    try {
      const cloudInit = renderCloudInit(
        config,
        machine,
        await resolveSecretFiles(this.direct, config.metadata.namespace!, config.spec),
      );
      const secret = bootstrapDataSecret(config, machine.spec.clusterName, cloudInit);
      await this.direct.apply(secret, { fieldManager: KUBEADM_BOOTSTRAP_FIELD_MANAGER, force: true });
      outcome = { secretName: secret.metadata.name! };
    } catch (e) {
      if (!(e instanceof BootstrapDataError)) throw e;
      outcome = { error: e };
    }
    const status = desiredConfigStatus(config, outcome, { now: this.now });
    if (!jsonEqual(config.status ?? {}, status)) {
      const written = await this.client.apply(
        {
          apiVersion: BOOTSTRAP_API_VERSION,
          kind: KubeadmConfigGVK.kind,
          metadata: { name: config.metadata.name, namespace: config.metadata.namespace },
          status,
        },
        { fieldManager: KUBEADM_BOOTSTRAP_FIELD_MANAGER, subresource: 'status', force: true },
      );
      // The next reconcile (a Machine change is likely on its way) must see dataSecretCreated, or it renders and
      // writes the Secret and the status again for nothing.
      const ref = {
        apiVersion: BOOTSTRAP_API_VERSION,
        kind: KubeadmConfigGVK.kind,
        namespace: req.namespace,
        name: req.name,
      };
      await this.cache?.waitForResourceVersion(ref, written.metadata.resourceVersion!, CACHE_WAIT_MS, ctx.signal);
    }
    // A missing referenced Secret may appear later; nothing watches it, so poll.
    if ('error' in outcome) return { requeueAfterMs: RETRY_MS };
  }
}
