export { startEnvtest, embeddedServer, envtestTarget, type Envtest, type EnvtestOptions, type EnvtestTarget } from './envtest';
export { eventually, settle, type ControllerQueues, type EventuallyOptions, type Falsy, type SettleOptions } from './polling';
export { clientFor, countingClientFor, kubeConfigFor, type KubeconfigSource } from './clients';
export { ManualClock } from './clock';
export { extensionConfigFor, testMachineCrd, TEST_INFRA_API_VERSION, TEST_INFRA_GROUP, TEST_MACHINE_KIND, type ExtensionEndpoint } from './fixtures';
