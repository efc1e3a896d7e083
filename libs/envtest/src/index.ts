export { startEnvtest, type Envtest, type EnvtestOptions } from './envtest';
