export * from './accepted-changes';
export * from './handlers';
export * from './server';
