export { embeddedServer, type Envtest, type EnvtestOptions, startEnvtest } from './envtest';
export type { EnvtestTarget } from '@capi/kube-control-plane';
export {
  type ControllerQueues,
  eventually,
  type EventuallyOptions,
  type Falsy,
  settle,
  type SettleOptions,
} from './polling';
export { clientFor, countingClientFor, kubeConfigFor, type KubeconfigSource } from './clients';
export {
  extensionConfigFor,
  type ExtensionEndpoint,
  TEST_INFRA_API_VERSION,
  TEST_MACHINE_KIND,
  testInfraCrd,
  testMachineCrd,
} from './fixtures';
