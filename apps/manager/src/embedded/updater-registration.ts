// Registers the embedded reference updater with the manager: one ExtensionConfig pointing at its HTTPS URL and CA.
import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { ExtensionConfigGVK, type ExtensionConfig } from '@capi/api';
import { KUBE_CLIENT, type Client } from '@capi/controller-runtime';
import { INMEMORY_INPLACE_UPDATER } from '@capi/inmemory';
import type { RunningInPlaceUpdater } from '@capi/inplace-updater';

export const UPDATER_EXTENSION_CONFIG_NAME = 'inmemory-inplace-updater';
export const EMBEDDED_FIELD_MANAGER = 'capi-embedded';

/** The ExtensionConfig (apply intent) for an updater listening at `url` with CA `caBundle` (base64 PEM). */
export function updaterExtensionConfig(
  updater: Pick<RunningInPlaceUpdater, 'url' | 'caBundle'>,
  name = UPDATER_EXTENSION_CONFIG_NAME,
): ExtensionConfig {
  return {
    apiVersion: ExtensionConfigGVK.apiVersion,
    kind: 'ExtensionConfig',
    metadata: { name },
    spec: { clientConfig: { url: updater.url, caBundle: updater.caBundle } },
  } as ExtensionConfig;
}

/** Applies the ExtensionConfig once every module is up (the updater has its URL; a restart updates URL and CA). */
@Injectable()
export class UpdaterRegistration implements OnApplicationBootstrap {
  private readonly log = new Logger('embedded');

  constructor(
    @Inject(KUBE_CLIENT) private readonly client: Client,
    @Inject(INMEMORY_INPLACE_UPDATER) private readonly updater: RunningInPlaceUpdater | undefined,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.updater) return;
    await this.client.apply(updaterExtensionConfig(this.updater), {
      fieldManager: EMBEDDED_FIELD_MANAGER,
      force: true,
    });
    this.log.log(
      `reference in-place updater at ${this.updater.url} registered as ExtensionConfig ${UPDATER_EXTENSION_CONFIG_NAME}`,
    );
  }
}
