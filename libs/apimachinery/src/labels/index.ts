export { LabelSelectorError, type Labels, type Operator, type Requirement } from './requirement';
export {
  everything,
  formatLabelSelector,
  labelSelectorAsSelector,
  matchesLabelSelector,
  nothing,
  parseSelector,
  type LabelSelector,
  type LabelSelectorRequirement,
  type Selector,
} from './selector';
