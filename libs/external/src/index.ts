export {
  ContractVersionResolver,
  contractVersionOf,
  ContractVersionError,
  type ContractVersionedRef,
} from './contract-version';
export { getReferenced } from './util';
export { ExternalObjectTracker } from './tracker';
