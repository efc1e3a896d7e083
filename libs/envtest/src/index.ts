export { startEnvtest, embeddedServer, type Envtest, type EnvtestOptions } from './envtest';
export { envtestTarget, type EnvtestTarget } from '@capi/kube-control-plane';
export {
  eventually,
  settle,
  type ControllerQueues,
  type EventuallyOptions,
  type Falsy,
  type SettleOptions,
} from './polling';
export { clientFor, countingClientFor, kubeConfigFor, type KubeconfigSource } from './clients';
export {
  extensionConfigFor,
  testMachineCrd,
  TEST_INFRA_API_VERSION,
  TEST_INFRA_GROUP,
  TEST_MACHINE_KIND,
  type ExtensionEndpoint,
} from './fixtures';
