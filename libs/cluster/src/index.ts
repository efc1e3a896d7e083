export { type ClusterDescendants, type ClusterScope, emptyDescendants } from './scope';
