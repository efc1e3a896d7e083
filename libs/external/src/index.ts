export {
  type ContractVersionedRef,
  ContractVersionError,
  contractVersionOf,
  ContractVersionResolver,
} from './contract-version';
export { getReferenced } from './util';
export { ExternalObjectTracker } from './tracker';
export { generateTemplate, groupKindString, type GenerateTemplateInput } from './template';
